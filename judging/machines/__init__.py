"""Machine judges: relevance labels from a language model or the embedded lexical judge. core/ is pure (prompts, the
client over the outbound rules, cache, the judging loop); services write a judge's configuration, runs and labels;
selectors, views, api and forms serve its pages; `python -m judging.machines` runs one on files."""
