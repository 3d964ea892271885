"""Grounded answers: LLM client, local model, agent, citation checks, web search."""
