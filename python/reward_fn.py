"""verl's custom reward file for the export: `custom_reward_function.path=<export>/reward_fn.py`,
`custom_reward_function.name=compute_score`. verl loads this file by path, so it puts its own
folder on `sys.path` and imports the package (which also registers MemPO's estimator with verl)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mempo_verl import compute_score  # noqa: E402,F401
