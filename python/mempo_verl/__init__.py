"""mempo_verl: mempo-lab's reward, memory reward, memory advantage and search
tool for verl (v0.7.0). Needs only torch; verl is imported only when it is
installed, and then the estimator `mempo`, the tool parser `mempo_search` and
the search tool are registered with it.

Every function here is checked equal to mempo-lab's TypeScript in its test
suite (tests/export/); see the export's README.md.
"""
from .answer_score import em_check, f1_score, normalize_answer, normalize_targets, outcome_reward, score_answer
from .compute_score import compute_score, score_turns, split_turns
from .estimator import VARIANTS, compute_mempo_advantage, mempo_memory_advantages
from .grpo import group_advantages
from .memory_advantage import combine_advantages, memory_advantages, span_length_scales
from .memory_reward import memory_reward
from .options import MempoOptions, load_options
from .search_tool import NO_RESULTS, format_information, retrieve, search_information, search_query
from .turn_format import extract_solution, parse_turn, validate_format
from .verl_hooks import register_with_verl

#: The verl release these files are written against.
VERL_VERSION = "0.7.0"

VERL_REGISTERED = register_with_verl()

__all__ = [
    "VARIANTS",
    "VERL_REGISTERED",
    "VERL_VERSION",
    "MempoOptions",
    "NO_RESULTS",
    "combine_advantages",
    "compute_mempo_advantage",
    "compute_score",
    "em_check",
    "extract_solution",
    "f1_score",
    "format_information",
    "group_advantages",
    "load_options",
    "memory_advantages",
    "memory_reward",
    "mempo_memory_advantages",
    "normalize_answer",
    "normalize_targets",
    "outcome_reward",
    "parse_turn",
    "retrieve",
    "score_answer",
    "score_turns",
    "search_information",
    "search_query",
    "span_length_scales",
    "split_turns",
    "validate_format",
]
