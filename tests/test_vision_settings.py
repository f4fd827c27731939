"""`vision.settings.with_overrides`: the `--set FIELD=VALUE` of the evaluation commands."""

from __future__ import annotations

import pytest

from vision.settings import DetectorSettings, with_overrides


def test_overrides_reach_nested_and_top_level_settings_with_their_types():
    base = DetectorSettings()
    changed = with_overrides(base, ["ranks.enabled=false", "ranks.min_digit_score=0.8", "conf_threshold=0.3",
                                    "max_detections=12", "mirror.match_iou=0.5"])
    assert changed.ranks.enabled is False and changed.ranks.min_digit_score == 0.8
    assert changed.conf_threshold == 0.3 and changed.max_detections == 12 and isinstance(changed.max_detections, int)
    assert changed.mirror == base.mirror and changed.ranks.band_shares == base.ranks.band_shares
    assert base.ranks.enabled is True  # the defaults are left alone


def test_a_tuple_of_numbers_is_written_with_commas():
    assert with_overrides(DetectorSettings(), ["ranks.band_shares=0.3"]).ranks.band_shares == (0.3,)
    assert with_overrides(DetectorSettings(), ["ranks.band_shares=0.3, 0.4"]).ranks.band_shares == (0.3, 0.4)


def test_no_overrides_is_the_same_settings():
    assert with_overrides(DetectorSettings(), []) == DetectorSettings()


@pytest.mark.parametrize(
    "assignment, message",
    [
        ("ranks.nope=1", "RankSettings has no setting 'nope'"),
        ("nope=1", "DetectorSettings has no setting 'nope'"),
        ("ranks=1", "is a section"),
        ("conf_threshold.x=1", "is a value, not a section"),
        ("ranks.enabled=maybe", "expected true or false"),
        ("ranks.min_digit_score=a lot", "expected a float"),
        ("max_detections=1.5", "expected a int"),
        ("ranks.band_shares=0.3,deep", "expected numbers separated by commas"),
        ("ranks.enabled", "write FIELD=VALUE"),
        ("=1", "write FIELD=VALUE"),
    ],
)
def test_a_bad_assignment_names_what_is_wrong(assignment, message):
    with pytest.raises(ValueError, match=message):
        with_overrides(DetectorSettings(), [assignment])


def test_rules_are_switched_off_by_name_with_commas():
    settings = with_overrides(DetectorSettings(), ["rules_off=mirror, base_reading", "mirror.sure_conf=0.5"])
    assert settings.rules_off == frozenset({"mirror", "base_reading"}) and settings.mirror.sure_conf == 0.5
    assert with_overrides(settings, ["rules_off="]).rules_off == frozenset()


def test_every_rule_is_registered_once_in_order_with_a_settings_section_of_its_own():
    from dataclasses import fields

    from vision.rules import BOXES, FACES, KINDS, RULE_NAMES, RULES

    sections = {f.name for f in fields(DetectorSettings)}
    assert len(set(RULE_NAMES)) == len(RULE_NAMES) == len(RULES)
    assert all(entry.settings_field is None or entry.settings_field in sections for entry in RULES)
    stages = [entry.stage for entry in RULES]  # each stage's rules together, in the pipeline's order
    assert stages == sorted(stages, key=[BOXES, FACES, KINDS].index)


def test_a_rule_not_in_the_table_is_refused_by_name():
    from vision.rules import check_rule_names

    check_rule_names(frozenset({"mirror", "unlike_strays"}))
    with pytest.raises(ValueError, match=r"no rule named mirrors .*the rules: unstretch, mirror"):
        check_rule_names(frozenset({"mirrors"}))
