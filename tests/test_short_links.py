"""Short links (ui/share.py ShortLinks): an id for a link's state, bounded in count and characters, the oldest
dropped first; an unknown id is named with how long short links last; the view's part of the page's address is
carried into a link."""

from __future__ import annotations

import pytest

import attention_core as ac
from ui import share


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
