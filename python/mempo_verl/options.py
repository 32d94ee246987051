"""MemPO's settings (the options verl's trainer config has no keys for), read
from the export's `config/mempo.json`. Each field is one of mempo-lab's
`RlConfig` fields (named in `FIELDS`)."""
import json
from dataclasses import asdict, dataclass, fields

#: mempo.json key -> the mempo-lab RlConfig field it comes from.
FIELDS = {
    "variant": "rl.memCredit",
    "mem_coef": "rl.memCoef",
    "threshold": "rl.memThreshold",
    "coverage": "rl.memCoverage",
    "pool": "rl.memPool",
    "close_tag": "rl.memCloseTag",
    "span_weight": "rl.memSpanWeight",
    "epsilon": "rl.epsilon",
    "std": "rl.std",
    "norm_by_std": "(true: GRPO; false would be Dr.GRPO)",
}


@dataclass(frozen=True)
class MempoOptions:
    """How memory credit is computed and applied (mempo-lab's defaults)."""

    variant: str = "mempo"
    mem_coef: float = 1.0
    threshold: object = None  # float in [0, 1) or None (off)
    coverage: bool = False
    pool: str = "question"
    close_tag: bool = True
    span_weight: str = "token"
    epsilon: float = 1e-6
    std: str = "bessel"
    norm_by_std: bool = True

    def __post_init__(self):
        checks = [
            ("pool", self.pool in ("question", "turn"), '"question" or "turn"'),
            ("span_weight", self.span_weight in ("token", "span"), '"token" or "span"'),
            ("std", self.std in ("bessel", "population"), '"bessel" or "population"'),
            ("close_tag", isinstance(self.close_tag, bool), "true or false"),
            ("coverage", isinstance(self.coverage, bool), "true or false"),
            ("norm_by_std", isinstance(self.norm_by_std, bool), "true or false"),
            ("threshold", self.threshold is None or (isinstance(self.threshold, (int, float)) and 0 <= self.threshold < 1),
             "null or a number in [0, 1)"),
            ("mem_coef", isinstance(self.mem_coef, (int, float)) and self.mem_coef == self.mem_coef, "a number"),
            ("epsilon", isinstance(self.epsilon, (int, float)) and self.epsilon >= 0, "a number >= 0"),
            ("variant", isinstance(self.variant, str), "a variant name"),
        ]
        for name, ok, what in checks:
            if not ok:
                raise ValueError(f"Invalid MemPO options: {name} must be {what}, current value is {getattr(self, name)!r}")

    def to_json(self):
        return asdict(self)


def load_options(path):
    """Reads `config/mempo.json`; an unknown key is an error that names it."""
    with open(path) as f:
        data = json.load(f)
    known = {f.name for f in fields(MempoOptions)}
    unknown = sorted(set(data) - known - {"_comment", "_from"})
    if unknown:
        raise ValueError(f"Invalid MemPO options in {path}: unknown key(s) {unknown}; known: {sorted(known)}")
    return MempoOptions(**{k: v for k, v in data.items() if k in known})
