"""Training recipes: MaskablePPO self-play (`ppo_selfplay.py`) and Ray RLlib (`rllib_ppo.py`)."""
