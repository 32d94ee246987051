"""The search tool as the agent reads it, over the export's retrieval server
(`deno task serve-search DIR`, Search-R1's `/retrieve` request and response).

    <information>[Doc 1] text 1
    [Doc 2] text 2</information>          or   <information>No search results are found.</information>

Plain functions here; the verl classes (a tool parser for `<search>…</search>`
and a `BaseTool`) are built by `verl_hooks.register_with_verl` when verl is
importable.
"""
import json
import urllib.request

from .turn_format import parse_turn

#: The message when nothing matches (mempo-lab `NO_RESULTS`).
NO_RESULTS = "No search results are found."


def format_information(texts):
    """The tool result the agent reads, from the documents' texts, best first."""
    texts = list(texts)
    body = NO_RESULTS if len(texts) == 0 else "\n".join(f"[Doc {i + 1}] {t}" for i, t in enumerate(texts))
    return f"<information>{body}</information>"


def retrieve(url, queries, topk=3, return_scores=True, timeout=30):
    """POSTs `{queries, topk, return_scores}` to a `/retrieve` endpoint; returns its `result`
    (per query a list of `{"document": {"id", "title", "text", "contents"}, "score"}`)."""
    body = json.dumps({"queries": list(queries), "topk": topk, "return_scores": return_scores}).encode()
    request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.loads(response.read())["result"]


def search_information(url, query, topk=3, timeout=30):
    """One search as the agent's tool: the `<information>` block for `query`."""
    [hits] = retrieve(url, [query], topk=topk, return_scores=True, timeout=timeout)
    return format_information(h["document"]["text"] for h in hits)


def search_query(turn_text):
    """The query of a generated turn (its text after the forced `<mem>`), or None when
    the turn is not a well-formed search (the episode then ends, as in mempo-lab)."""
    parsed = parse_turn(f"<mem> {turn_text}")
    if not parsed.ok or parsed.value.action != "search":
        return None
    return parsed.value.content
