"""Registration with verl (v0.7.0), done only when verl is importable.

- `register_adv_est("mempo")`: the MemPO estimator in verl's registry, and
  `mempo_grpo` (GRPO with mempo-lab's normaliser options, no memory credit);
- `verl.trainer.ppo.ray_trainer.compute_advantage` wrapped so that, for
  `algorithm.adv_estimator=mempo`, it passes the batch's MemPO fields
  (`memory_rewards`, `memory_span_ids`, and `traj_uid` for one row per turn):
  verl's own `compute_advantage` passes a registered estimator only
  `token_level_rewards`, `response_mask`, `index` and `config`;
- a tool parser `mempo_search` for `<search>…</search>` turns
  (`actor_rollout_ref.rollout.multi_turn.format=mempo_search`) and the tool
  `mempo_verl.verl_hooks.MempoSearchTool` (the export's `config/tool_config.yaml`).

The options of MemPO come from `MEMPO_OPTIONS` (a path, default
`config/mempo.json` beside this package).
"""
import asyncio
import importlib.util
import json
import os

from .estimator import compute_mempo_advantage
from .options import MempoOptions, load_options
from .search_tool import search_information, search_query

_registered = False


def default_options():
    """`MempoOptions` from `$MEMPO_OPTIONS` or the export's `config/mempo.json` (defaults when absent)."""
    path = os.environ.get("MEMPO_OPTIONS") or os.path.join(os.path.dirname(os.path.dirname(__file__)), "config", "mempo.json")
    return load_options(path) if os.path.exists(path) else MempoOptions()


def mempo_estimator(token_level_rewards, response_mask, index=None, config=None, **kwargs):
    """The function registered as verl's `mempo` estimator (verl's estimator signature)."""
    del config
    if "memory_rewards" not in kwargs or "memory_span_ids" not in kwargs:
        raise ValueError(
            "adv_estimator=mempo needs the batch's memory_rewards [B, K] and memory_span_ids [B, T], written by a MemPO "
            "agent loop and passed by the wrapped compute_advantage (import mempo_verl in the trainer process; see the export's README.md)"
        )
    return compute_mempo_advantage(
        token_level_rewards,
        response_mask,
        index,
        memory_rewards=kwargs["memory_rewards"],
        memory_span_ids=kwargs["memory_span_ids"],
        traj_index=kwargs.get("traj_index"),
        options=kwargs.get("options") or default_options(),
    )


def mempo_grpo_estimator(token_level_rewards, response_mask, index=None, config=None, **kwargs):
    """GRPO with mempo-lab's normaliser options (`std`, `epsilon` of config/mempo.json), no memory credit:
    registered as `mempo_grpo` for runs whose normaliser is not verl's (Bessel std, epsilon 1e-6)."""
    del config
    return compute_mempo_advantage(
        token_level_rewards, response_mask, index, traj_index=kwargs.get("traj_index"),
        options=kwargs.get("options") or default_options(),
    )


def wrap_compute_advantage(original):
    """verl's `compute_advantage(data, adv_estimator, ...)`, passing MemPO's fields for `mempo`."""

    def compute_advantage(data, adv_estimator, *args, **kwargs):
        name = getattr(adv_estimator, "value", adv_estimator)
        if name != "mempo":
            return original(data, adv_estimator, *args, **kwargs)
        if "response_mask" not in data.batch.keys():
            raise ValueError("adv_estimator=mempo needs data.batch['response_mask']")
        traj = data.non_tensor_batch.get("traj_uid") if hasattr(data.non_tensor_batch, "get") else None
        advantages, returns = mempo_estimator(
            data.batch["token_level_rewards"],
            data.batch["response_mask"],
            data.non_tensor_batch["uid"],
            memory_rewards=data.batch["memory_rewards"] if "memory_rewards" in data.batch.keys() else None,
            memory_span_ids=data.batch["memory_span_ids"] if "memory_span_ids" in data.batch.keys() else None,
            traj_index=traj,
        )
        data.batch["advantages"] = advantages
        data.batch["returns"] = returns
        return data

    compute_advantage.__wrapped__ = original
    return compute_advantage


def register_with_verl():
    """Registers the estimator, the compute_advantage wrapper, the tool parser and the tool.
    Returns False (and does nothing) when verl is not installed."""
    global _registered
    if _registered:
        return True
    if importlib.util.find_spec("verl") is None:
        return False
    from verl.trainer.ppo import core_algos

    registry = getattr(core_algos, "ADV_ESTIMATOR_REGISTRY", {})
    for name, fn in (("mempo", mempo_estimator), ("mempo_grpo", mempo_grpo_estimator)):
        if name not in registry:  # a second copy of this package must not clash with the first
            core_algos.register_adv_est(name)(fn)
    try:
        from verl.trainer.ppo import ray_trainer
    except ImportError:  # a worker without the trainer's dependencies: the estimator alone
        ray_trainer = None
    if ray_trainer is not None and not hasattr(ray_trainer.compute_advantage, "__wrapped__"):
        ray_trainer.compute_advantage = wrap_compute_advantage(ray_trainer.compute_advantage)
    _register_agent_loop_parts()
    _registered = True
    return True


def _register_agent_loop_parts():
    try:
        from verl.experimental.agent_loop.tool_parser import FunctionCall, ToolParser
        from verl.tools.base_tool import BaseTool
        from verl.tools.schemas import ToolResponse
    except ImportError:  # a verl without the agent loop
        return

    @ToolParser.register("mempo_search")
    class MempoSearchParser(ToolParser):
        """`<search> q </search>` in a well-formed turn -> one call of the `search` tool."""

        async def extract_tool_calls(self, responses_ids):
            text = self.tokenizer.decode(responses_ids)
            query = search_query(text)
            if query is None:
                return text, []
            return text, [FunctionCall(name="search", arguments=json.dumps({"query": query}))]

    class _MempoSearchTool(BaseTool):
        """The export's retrieval server as verl's tool (config: retrieval_service_url, topk)."""

        async def execute(self, instance_id, parameters, **kwargs):
            url = self.config.get("retrieval_service_url", "http://127.0.0.1:8000/retrieve")
            query, topk = str(parameters.get("query", "")), int(self.config.get("topk", 3))
            # the HTTP call blocks: off the agent loop's event loop
            text = await asyncio.get_running_loop().run_in_executor(None, lambda: search_information(url, query, topk=topk))
            return ToolResponse(text=text), 0.0, {}

    globals()["MempoSearchTool"] = _MempoSearchTool
    globals()["MempoSearchParser"] = MempoSearchParser


def __getattr__(name):
    # `tool_config.yaml` names mempo_verl.verl_hooks.MempoSearchTool: importing it registers with verl first
    if name in ("MempoSearchTool", "MempoSearchParser"):
        register_with_verl()
        if name in globals():
            return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r} (is verl installed?)")
