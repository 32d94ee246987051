from abc import ABC, abstractmethod
from dataclasses import dataclass


@dataclass
class FunctionCall:
    arguments: str
    name: str


class ToolParser(ABC):
    _registry = {}

    def __init__(self, tokenizer) -> None:
        self.tokenizer = tokenizer

    @abstractmethod
    async def extract_tool_calls(self, responses_ids):
        raise NotImplementedError

    @classmethod
    def get_tool_parser(cls, name, tokenizer):
        if name not in cls._registry:
            raise ValueError(f"Unknown tool parser: {name}")
        return cls._registry[name](tokenizer)

    @classmethod
    def register(cls, name):
        def decorator(subclass):
            cls._registry[name] = subclass
            return subclass

        return decorator
