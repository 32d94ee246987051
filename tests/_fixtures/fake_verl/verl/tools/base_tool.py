class BaseTool:
    def __init__(self, config, tool_schema):
        self.config = config
        self.tool_schema = tool_schema
        self.name = "search"

    async def execute(self, instance_id, parameters, **kwargs):
        raise NotImplementedError
