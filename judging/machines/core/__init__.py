"""Machine judges: a relevance label for a (topic, document) pair from a language model, through any
OpenAI-compatible chat-completions server (OpenAI, Azure OpenAI, vLLM, Ollama, llama.cpp's server, LM Studio).

prompts.py: the templates from the literature and the parsing of their replies; client.py: the server's protocol
with its faults (timeouts, 429 and Retry-After, 5xx, malformed bodies), limits and a budget; cache.py: every reply
kept by (configuration, prompt version, topic, document), so a pair is never paid for twice; judge.py: pairs in,
labels and failures out. No database: `python -m judging.machines` runs them on files.
"""
