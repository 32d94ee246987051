from dataclasses import dataclass
from typing import Optional


@dataclass
class ToolResponse:
    text: Optional[str] = None
