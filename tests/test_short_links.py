"""Short links (ui/share.py ShortLinks): an id for a link's state, bounded in count and characters, the oldest
dropped first; an unknown id is named with how long short links last; the view's part of the page's address is
carried into a link."""

from __future__ import annotations

import dataclasses
import html
from urllib.parse import parse_qsl, urlsplit

import pytest
import torch

import attention_core as ac
from ui import live, pipeline, share, values


def test_an_id_gives_back_its_state_and_the_store_is_bounded() -> None:
    links = share.ShortLinks(size=3, chars=1_000)
    ids = [links.add(f"preset=p{i}") for i in range(5)]
    assert len(set(ids)) == 5 and all(len(i) == 8 for i in ids)
    assert [links.get(i) for i in ids[2:]] == ["preset=p2", "preset=p3", "preset=p4"]
    with pytest.raises(ac.ScenarioError, match=r"link: the short link .* is not known to this server .* restarts"):
        links.get(ids[0])  # the oldest went first
    big = share.ShortLinks(size=100, chars=1_000)
    first = big.add("scenario=" + "a" * 600)
    big.add("scenario=" + "b" * 600)  # 1,218 characters in all: the first goes
    with pytest.raises(ac.ScenarioError):
        big.get(first)
    assert big.total <= 1_000


def test_a_short_link_opens_the_state_and_a_bad_one_falls_back_with_a_message() -> None:
    key = share.SHORT.add("preset=numpy-masked")
    assert share.link_values({"s": key})[0] == "numpy-masked"
    preset_id, _, _, views = share.link_values({"s": "nope"})
    assert preset_id == share.DEFAULT_PRESET and "&#x27;nope&#x27; is not known to this server" in views["message"]


def test_the_view_part_of_the_page_address_goes_into_the_link() -> None:
    assert share.view_query("http://h/?preset=x&tab=scaling&d_k=512&junk=1") == "&tab=scaling&d_k=512"
    assert share.view_query("http://h/?present=scores") == "&present=scores"
    assert share.view_query(None) == "" and share.view_query("http://h/") == ""


def test_the_address_holds_the_state_as_a_link_does_and_a_large_one_as_a_short_id() -> None:
    """ui/share.py state_query, which static/address.js writes into the address after each answer: nothing for the
    default preset as it is, the preset's id for another, the scenario once edited (opening the state it came
    from), and for a state past a link's size a short id that opens it."""
    _, default, _ = pipeline.load_values(share.DEFAULT_PRESET)
    assert share.state_query(share.DEFAULT_PRESET, default) == {}
    _, mha2, _ = pipeline.load_values("statquest-mha2")
    assert share.state_query("statquest-mha2", mha2) == {"preset": "statquest-mha2"}
    shown2 = dataclasses.replace(mha2, view_head=2)
    assert share.state_query("statquest-mha2", shown2) == {"preset": "statquest-mha2", "head_shown": "2"}
    rows = mha2.x["data"]  # (a grid's rows: the token's label, then its numbers)
    edited = dataclasses.replace(shown2, x={**mha2.x, "data": [[rows[0][0], 1.75, *rows[0][2:]], *rows[1:]]})
    query = share.state_query("statquest-mha2", edited)
    assert list(query) == ["scenario"]
    _, _, opened, _ = share.link_values(query)
    assert pipeline.current_scenario(None, opened)[1] == pipeline.current_scenario(None, edited)[1]
    gen = torch.Generator().manual_seed(0)
    big = values.values_from_scenario(ac.parse(large(32, 4, gen)), seed=1)  # past a link, not a short link
    query = share.state_query(None, big)
    assert query is not None and list(query) == ["s", "seed"] and len(query["s"]) == 8 and query["seed"] == "1"
    _, _, opened, got = share.link_values(query)
    assert "msg-error" not in str(got["message"])
    assert opened.seed == 1  # (the seed box's, carried beside the state: a resize draws from it)
    assert len(share.encode_link(pipeline.current_scenario(None, big)[1])) > share.MAX_LINK
    assert pipeline.current_scenario(None, opened)[1] == pipeline.current_scenario(None, big)[1]
    largest = values.values_from_scenario(ac.parse(large(64, 8, gen)), seed=1)  # past MAX_LINK_JSON
    assert share.state_query(None, largest) is None
    assert live.ASKS["address"]({"preset": "statquest-mha2", "vals": shown2}) == {
        "address": {"preset": "statquest-mha2", "head_shown": "2"}
    }
    assert live.ASKS["address"]({}) == {}  # a page the server holds no state for: the address is left as it is


def large(n: int, heads: int, gen: torch.Generator) -> dict[str, object]:
    """n tokens of n dims, ``heads`` heads of n dims each, with seeded linear weights (written out in a link)."""
    x = torch.randn(n, n, generator=gen).round(decimals=1).tolist()
    return {"x": x, "heads": heads, "d_out": n, "weights": {"init": "linear", "seed": 1}}


def test_the_address_ask_is_computed_once_per_state(monkeypatch: pytest.MonkeyPatch) -> None:
    """A page asks for its address after each answer and after a tab or stage change: for the same stored state the
    kept answer comes back (a large state's costs the server ~0.1 s), and a new state is computed anew."""
    _, mha2, _ = pipeline.load_values("statquest-mha2")
    calls: list[object] = []
    real = share.state_query
    monkeypatch.setattr(share, "state_query", lambda p, v: calls.append(v) or real(p, v))
    entry = {"preset": "statquest-mha2", "vals": mha2}
    first = live.ASKS["address"](entry)
    assert live.ASKS["address"](entry) == first == {"address": {"preset": "statquest-mha2"}}
    assert calls == [mha2]
    entry["vals"] = dataclasses.replace(mha2, view_head=2)  # an answer stored a new state
    assert live.ASKS["address"](entry) == {"address": {"preset": "statquest-mha2", "head_shown": "2"}}
    entry["preset"] = None  # the same values, no preset now: computed anew
    assert list(live.ASKS["address"](entry)["address"]) == ["scenario"]
    assert len(calls) == 3


def test_a_share_links_seed_is_kept_in_its_short_form_and_a_bad_one_is_named_with_a_bad_link() -> None:
    """The Share panel's short link holds the seed with the state (preset=…&seed=…), and opens with it; a link that
    is bad twice over names both problems (the seed's message did not replace the link's)."""
    preset, _, nv, _ = share.link_values({"preset": "mistral-style", "seed": "9"})
    assert nv.seed == 9 and share.link_values({"preset": "mistral-style"})[2].seed == 7  # the preset's own
    link = share.share_link(preset, nv, "http://host/")
    assert link == "http://host/?preset=mistral-style&seed=9"
    short = share.short_link(link)
    assert "seed" not in short
    assert share.link_values(dict(parse_qsl(urlsplit(short).query)))[2].seed == 9
    _, _, bad, got = share.link_values({"preset": "nope", "seed": "abc"})
    said = html.unescape(str(got["message"]))
    assert "preset: 'nope' is not a preset id" in said and "seed: 'abc' is not a whole number" in said, said
    assert bad.seed == 42
