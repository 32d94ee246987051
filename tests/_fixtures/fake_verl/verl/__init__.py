"""A stand-in for verl 0.7.0 with only the names mempo_verl touches, their signatures as verl publishes them
(verl/trainer/ppo/core_algos.py register_adv_est / ADV_ESTIMATOR_REGISTRY, ray_trainer.compute_advantage,
verl/experimental/agent_loop/tool_parser.py ToolParser / FunctionCall, verl/tools/base_tool.py BaseTool,
verl/tools/schemas.py ToolResponse). Used by tests/export/export_verl_test.ts to check the registration contract
without installing verl."""
