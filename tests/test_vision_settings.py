"""`vision.settings.with_overrides`: the `--set FIELD=VALUE` of the evaluation commands."""

from __future__ import annotations

import pytest

from vision.settings import CalibrateSettings, DetectorSettings, with_overrides


def test_overrides_reach_nested_and_top_level_settings_with_their_types():
    base = DetectorSettings()
    changed = with_overrides(base, ["intra_op_spinning=true", "unlike_strays.likeness=-0.2", "conf_threshold=0.3",
                                    "max_detections=12", "mirror.match_iou=0.5"])
    assert changed.intra_op_spinning is True and changed.unlike_strays.likeness == -0.2
    assert changed.conf_threshold == 0.3 and changed.max_detections == 12 and isinstance(changed.max_detections, int)
    assert changed.mirror == base.mirror and changed.unlike_strays.max_finder_conf == base.unlike_strays.max_finder_conf
    assert base.intra_op_spinning is False and base.unlike_strays.likeness == -0.1  # the defaults are left alone


def test_a_tuple_of_numbers_is_written_with_commas():
    assert with_overrides(CalibrateSettings(), ["scales=40"]).scales == (40.0,)
    assert with_overrides(CalibrateSettings(), ["scales=40, 80.5"]).scales == (40.0, 80.5)


def test_no_overrides_is_the_same_settings():
    assert with_overrides(DetectorSettings(), []) == DetectorSettings()


@pytest.mark.parametrize(
    "assignment, message",
    [
        ("mirror.nope=1", "MirrorSettings has no setting 'nope'"),
        ("nope=1", "DetectorSettings has no setting 'nope'"),
        ("mirror=1", "is a section"),
        ("conf_threshold.x=1", "is a value, not a section"),
        ("intra_op_spinning=maybe", "expected true or false"),
        ("mirror.sure_conf=a lot", "expected a float"),
        ("max_detections=1.5", "expected a int"),
        ("mirror.sure_conf", "write FIELD=VALUE"),
        ("=1", "write FIELD=VALUE"),
    ],
)
def test_a_bad_assignment_names_what_is_wrong(assignment, message):
    with pytest.raises(ValueError, match=message):
        with_overrides(DetectorSettings(), [assignment])


def test_a_tuple_that_is_not_numbers_is_refused():
    with pytest.raises(ValueError, match="expected numbers separated by commas"):
        with_overrides(CalibrateSettings(), ["scales=40,deep"])


def test_a_setting_deleted_from_the_reader_is_refused_by_name():
    with pytest.raises(ValueError, match="DetectorSettings has no setting 'ranks'"):
        with_overrides(DetectorSettings(), ["ranks.enabled=false"])


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
