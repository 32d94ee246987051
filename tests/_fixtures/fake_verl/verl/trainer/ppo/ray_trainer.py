from . import core_algos

CALLS = []


def compute_advantage(data, adv_estimator, gamma=1.0, lam=1.0, num_repeat=1, norm_adv_by_std_in_grpo=True, config=None):
    """verl 0.7.0's dispatch for estimators other than gae/grpo: only these four fields reach the estimator."""
    CALLS.append(adv_estimator)
    fn = core_algos.get_adv_estimator_fn(adv_estimator)
    kwargs = {"token_level_rewards": data.batch["token_level_rewards"], "response_mask": data.batch["response_mask"], "config": config}
    if "uid" in data.non_tensor_batch:
        kwargs["index"] = data.non_tensor_batch["uid"]
    advantages, returns = fn(**kwargs)
    data.batch["advantages"] = advantages
    data.batch["returns"] = returns
    return data
