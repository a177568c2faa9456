"""Environments for reinforcement learning."""
