"""The generic adapters, written once for every game: Gymnasium single and
vector envs, the Stable-Baselines3 VecEnv, PettingZoo AEC and Parallel, the
batched multi-agent env and the self-play view. Each is imported on its own
(nothing is imported here), so the contract never pulls in Gymnasium."""
