"""toolcall_valid (layer D): is the proposed call correct for the request under this schema?

Story. An assistant of an invented organisation can call one tool. The state shows the tool's JSON
schema (JSON Schema style ``parameters`` with 6, 9 or 12 top-level properties), numbered rules for
judging a call, today's date, a short conversation (two to four earlier messages of the same user
and the current request) and the proposed call as JSON. Most rules of the tool live only in the
property descriptions, not in JSON Schema keywords:

* formats: dates as YYYY-MM-DD, times as 24-hour HH:MM, identifiers as ``DPT-####`` in capitals;
* ranges stated only in text: "a whole number from 1 to 24", "at least 3 days after today",
  "not earlier than 07:30", "no more than 4,000.00 NOK";
* dependencies between fields: a flag that must be true when another field reaches a threshold
  (and left out otherwise), a total that must equal the sum of two counts, a date that must be later
  than another date.

The request gives values directly ("Number of boxes: 3", "14 May 2026", "2:30 pm") or indirectly:
relative dates counted from today ("next Tuesday", "in 5 days", "4 days after the pickup date"),
unit conversions ("2.5 kilograms" for a property in grams), references to earlier messages ("the
same as last time", "the same as in my message of 2 April 2026") and limits ("the maximum the tool
allows"). The correct call is derived from the structured case by :func:`expected_call`.

Groups. 300 pairs; the members share schema, rules, conversation and wording and differ only in
one argument of the proposed call (decisive path ``call/arguments/<key>``). The positive is the
correct call; the negative plants one deviation, 50 pairs per type:

* ``missing_required`` - a required property is left out (visible from the schema alone);
* ``wrong_type`` - the right value with the wrong JSON type, ``"3"`` for 3 (visible from the schema);
* ``contradicts_direct`` - a value that contradicts one the request states directly;
* ``misread_indirect`` - a misread relative date, unit conversion or reference to an earlier message;
* ``description_format_range`` - the right value in a format the description forbids, or one unit
  past a range stated only in the description (the request asked for the limit);
* ``description_dependency`` - a flag, total or date ordering that breaks a dependency stated only in
  a description (flag boundaries: the source value sits exactly at the threshold or one unit below).

Only the first two types are visible to a JSON Schema validator: every positive validates, and so do
the negatives of the four other types, so a schema-only checker scores about 2/3 item accuracy
(``heuristic_schema_only``; the paper's version reached 91.7%). Pair variations rotate over the six
types across the whole draw (17/17/17/17/16/16 per level, 50 per type overall).

Levels: 6, 9 or 12 schema properties; 2, 2-3 or 3-4 earlier messages; more indirect values at
higher levels. Eight domains, one tool each, with 16 candidate properties per tool.

Version history:
* 1.0 - first release: deviations mostly visible from JSON Schema keywords (schema-only check 91.7%).
* 1.1 - six deviation types x 50 pairs; rules moved into descriptions so that only missing_required
  and wrong_type are visible from the schema alone; limits at the boundary; references to earlier
  messages and unit conversions.
* 1.2 - text revision (issue 14): no "enum" in prose (descriptions and rule 1 say "listed values"),
  teaching languages capitalised ("English"), the retail key ``product_code`` instead of ``sku``,
  number agreement ("at least 1 day", "1 minute"), articles in yes/no requests ("I want a printed
  invoice"), relative dates only in clauses that take them ("The delivery date should be in 4 days",
  never "For the delivery date, use in 4 days"), "meal plan" for the hotel board, organisation
  names that suit the domain (no "Foundry" runs clinics). Deviation types, balance and answers are
  unchanged; the solver reads both the 1.1 and the 1.2 wording.
* 1.3 - core 1.3 (issue #38), text a careful person would have written: names read like names of the
  case's region and kind (``common/names.py``: "Sanne Bakker", "Bakker Freight", "Vejle"; 1.2 wrote
  random syllables), each chosen by the draws its 1.2 name took, so cases are drawn as before. A message
  asks "I'd like the number of apprentices to be 3." where 1.2 filled in a form ("For the number of
  apprentices, use 3."); the solver reads both.
"""

from __future__ import annotations

import datetime as dt
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from decisionpivot.generate.common.domains import DOMAIN_BY_NAME
from decisionpivot.generate.common.formatting import WEEKDAYS, grouped, long_date, money, weekday_date
from decisionpivot.generate.common.names import NameForge
from decisionpivot.generate.common.wording import pick
from decisionpivot.generate.family import FamilyConfig, FamilySpec, Group, GroupPlan, Member
from decisionpivot.generate.registry import register
from decisionpivot.items import Item, Option

NAME = "toolcall_valid"
VERSION = "1.3"
QUESTION = "Is the proposed call correct for the request under this schema?"
OPTIONS = (
    Option("yes", "the call fits the schema, every rule in its descriptions and the request"),
    Option("no", "at least one argument of the call is wrong, missing or not allowed"),
)
VARIATIONS = (
    "missing_required", "wrong_type", "contradicts_direct", "misread_indirect",
    "description_format_range", "description_dependency",
)
SCHEMA_VISIBLE = ("missing_required", "wrong_type")

# --- the tools ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PropSpec:
    """One candidate property of a tool."""

    key: str
    """JSON key."""
    label: str
    """Human label used in the description and the request."""
    kind: str
    """date, time, count, measure, money, enum, bool, code, flag or total."""
    params: tuple[Any, ...] = ()
    """count: (lo, hi_from, hi_to); measure: (unit, lo, hi_from, hi_to); money: (hi_from, hi_to);
    enum: values; code: (prefix,); flag: (source key,); total: (part a, part b)."""


@dataclass(frozen=True)
class Tool:
    domain: str
    name: str
    description: str
    verb: str
    """What the user asks for ('book a shipment')."""
    props: tuple[PropSpec, ...]


def _p(key: str, label: str, kind: str, *params: Any) -> PropSpec:
    return PropSpec(key, label, kind, tuple(params))


TOOLS: tuple[Tool, ...] = (
    Tool("logistics", "book_shipment", "Books a freight shipment with {org}.", "book a shipment", (
        _p("pickup_date", "pickup date", "date"),
        _p("delivery_date", "delivery date", "date"),
        _p("pickup_time", "pickup time", "time"),
        _p("origin_depot", "origin depot", "code", "DPT"),
        _p("destination_depot", "destination depot", "code", "DPT"),
        _p("boxes", "number of boxes", "count", 1, 24, 60),
        _p("pallets", "number of pallets", "count", 0, 6, 16),
        _p("total_units", "total unit count", "total", "boxes", "pallets"),
        _p("weight_g", "shipment weight", "measure", "grams", 100, 40000, 90000),
        _p("loading_minutes", "loading time", "measure", "minutes", 10, 240, 480),
        _p("declared_value", "declared value", "money", 4000, 9000),
        _p("insured", "insurance flag", "flag", "declared_value"),
        _p("service_level", "service level", "enum", "economy", "standard", "express"),
        _p("customer_account", "customer account", "code", "ACC"),
        _p("signature_required", "signature on delivery", "bool"),
        _p("hazardous", "hazardous goods handling", "bool"),
    )),
    Tool("healthcare", "schedule_visit", "Schedules a visit at a clinic of {org}.",
         "schedule a clinic visit", (
        _p("visit_date", "visit date", "date"),
        _p("follow_up_date", "follow-up date", "date"),
        _p("start_time", "start time", "time"),
        _p("clinic", "clinic code", "code", "CLN"),
        _p("referral", "referral number", "code", "REF"),
        _p("adult_patients", "number of adult patients", "count", 1, 4, 8),
        _p("child_patients", "number of child patients", "count", 0, 4, 8),
        _p("total_patients", "total patient count", "total", "adult_patients", "child_patients"),
        _p("visit_minutes", "visit length", "measure", "minutes", 15, 240, 360),
        _p("sample_ml", "sample volume", "measure", "millilitres", 5, 3000, 6000),
        _p("estimated_cost", "estimated cost", "money", 2000, 6000),
        _p("pre_authorised", "pre-authorisation flag", "flag", "estimated_cost"),
        _p("visit_type", "visit type", "enum", "consultation", "check-up", "vaccination", "therapy"),
        _p("priority", "priority", "enum", "routine", "soon", "urgent"),
        _p("interpreter", "interpreter", "bool"),
        _p("wheelchair_access", "wheelchair access", "bool"),
    )),
    Tool("retail", "place_order", "Places a customer order at {org}.", "place an order", (
        _p("delivery_date", "delivery date", "date"),
        _p("invoice_date", "invoice date", "date"),
        _p("delivery_time", "delivery time", "time"),
        _p("store", "store code", "code", "STR"),
        _p("product_code", "product code", "code", "SKU"),
        _p("units", "number of units", "count", 1, 30, 80),
        _p("gift_units", "number of gift units", "count", 0, 10, 30),
        _p("total_units", "total unit count", "total", "units", "gift_units"),
        _p("parcel_weight_g", "parcel weight", "measure", "grams", 50, 20000, 50000),
        _p("fabric_cm", "fabric length", "measure", "centimetres", 10, 2000, 5000),
        _p("order_value", "order value", "money", 3000, 8000),
        _p("manager_approval", "manager approval flag", "flag", "order_value"),
        _p("colour", "colour", "enum", "sand", "slate", "moss", "rust"),
        _p("shipping", "shipping method", "enum", "pickup", "courier", "post"),
        _p("gift_wrap", "gift wrapping", "bool"),
        _p("printed_invoice", "printed invoice", "bool"),
    )),
    Tool("software", "provision_workspace", "Provisions a build workspace on the {org} platform.",
         "set up a build workspace", (
        _p("start_date", "start date", "date"),
        _p("expiry_date", "expiry date", "date"),
        _p("maintenance_time", "maintenance time", "time"),
        _p("project", "project code", "code", "PRJ"),
        _p("ticket", "ticket number", "code", "TCK"),
        _p("build_agents", "number of build agents", "count", 1, 16, 40),
        _p("gpu_agents", "number of GPU agents", "count", 0, 4, 12),
        _p("total_agents", "total agent count", "total", "build_agents", "gpu_agents"),
        _p("storage_mb", "storage quota", "measure", "megabytes", 500, 50000, 90000),
        _p("timeout_minutes", "job timeout", "measure", "minutes", 5, 300, 720),
        _p("monthly_budget", "monthly budget", "money", 3000, 9000),
        _p("budget_review", "budget review flag", "flag", "monthly_budget"),
        _p("tier", "service tier", "enum", "basic", "standard", "premium"),
        _p("region", "region", "enum", "north", "central", "south"),
        _p("auto_scaling", "automatic scaling", "bool"),
        _p("nightly_backup", "nightly backups", "bool"),
    )),
    Tool("finance", "schedule_transfer", "Schedules a payment transfer at {org}.", "schedule a transfer", (
        _p("execution_date", "execution date", "date"),
        _p("confirmation_date", "confirmation date", "date"),
        _p("cutoff_time", "cut-off time", "time"),
        _p("source_account", "source account", "code", "ACC"),
        _p("target_account", "target account", "code", "ACC"),
        _p("internal_signers", "number of internal signers", "count", 1, 5, 9),
        _p("external_signers", "number of external signers", "count", 0, 3, 8),
        _p("total_signers", "total signer count", "total", "internal_signers", "external_signers"),
        _p("instalments", "number of instalments", "count", 1, 12, 36),
        _p("hold_minutes", "hold period", "measure", "minutes", 0, 600, 1440),
        _p("amount", "transfer amount", "money", 5000, 9500),
        _p("compliance_check", "compliance check flag", "flag", "amount"),
        _p("channel", "payment channel", "enum", "wire", "instant", "batch"),
        _p("urgency", "urgency", "enum", "normal", "high"),
        _p("notify_payee", "payee notification", "bool"),
        _p("recurring", "monthly repetition", "bool"),
    )),
    Tool("education", "register_course", "Registers a group for a course at {org}.",
         "register a group for a course", (
        _p("course_start", "course start date", "date"),
        _p("exam_date", "exam date", "date"),
        _p("session_time", "session time", "time"),
        _p("course", "course code", "code", "CRS"),
        _p("room", "room code", "code", "RMS"),
        _p("onsite_learners", "number of on-site learners", "count", 1, 20, 40),
        _p("remote_learners", "number of remote learners", "count", 0, 15, 40),
        _p("total_learners", "total learner count", "total", "onsite_learners", "remote_learners"),
        _p("session_minutes", "session length", "measure", "minutes", 30, 300, 480),
        _p("lab_kits", "number of lab kits", "count", 0, 12, 30),
        _p("fee", "course fee", "money", 2500, 7000),
        _p("finance_review", "finance review flag", "flag", "fee"),
        _p("course_level", "course level", "enum", "beginner", "intermediate", "advanced"),
        _p("language", "teaching language", "enum", "English", "French", "Spanish"),
        _p("certificates", "certificates", "bool"),
        _p("recording", "session recording", "bool"),
    )),
    Tool("energy", "schedule_maintenance", "Schedules a field maintenance visit for {org}.",
         "schedule a maintenance visit", (
        _p("visit_date", "visit date", "date"),
        _p("report_date", "report due date", "date"),
        _p("arrival_time", "arrival time", "time"),
        _p("site", "site code", "code", "SITE"),
        _p("meter", "meter number", "code", "MTR"),
        _p("technicians", "number of technicians", "count", 1, 5, 9),
        _p("apprentices", "number of apprentices", "count", 0, 3, 6),
        _p("crew_total", "total crew count", "total", "technicians", "apprentices"),
        _p("cable_m", "cable length", "measure", "metres", 10, 8000, 20000),
        _p("outage_minutes", "planned outage", "measure", "minutes", 0, 360, 720),
        _p("cost_estimate", "cost estimate", "money", 3000, 9000),
        _p("permit_required", "permit flag", "flag", "cost_estimate"),
        _p("work_type", "work type", "enum", "inspection", "repair", "replacement"),
        _p("urgency", "urgency", "enum", "low", "medium", "high"),
        _p("outage_allowed", "power outage", "bool"),
        _p("photo_report", "photo report", "bool"),
    )),
    Tool("hospitality", "reserve_rooms", "Reserves hotel rooms with {org}.", "reserve rooms", (
        _p("check_in", "check-in date", "date"),
        _p("check_out", "check-out date", "date"),
        _p("arrival_time", "arrival time", "time"),
        _p("hotel", "hotel code", "code", "HTL"),
        _p("rate_plan", "rate plan", "code", "RTP"),
        _p("adults", "number of adults", "count", 1, 8, 20),
        _p("children", "number of children", "count", 0, 4, 10),
        _p("total_guests", "total guest count", "total", "adults", "children"),
        _p("rooms", "number of rooms", "count", 1, 6, 15),
        _p("meeting_minutes", "meeting room time", "measure", "minutes", 30, 480, 720),
        _p("deposit", "deposit", "money", 2000, 6000),
        _p("prepayment", "prepayment flag", "flag", "deposit"),
        _p("room_type", "room type", "enum", "standard", "superior", "suite"),
        _p("board", "meal plan", "enum", "room-only", "breakfast", "half-board"),
        _p("parking", "parking", "bool"),
        _p("late_checkout", "late checkout", "bool"),
    )),
)

MEASURE_UNITS: dict[str, tuple[str, str, int]] = {
    "grams": ("kilogram", "kilograms", 1000),
    "minutes": ("hour", "hours", 60),
    "millilitres": ("litre", "litres", 1000),
    "metres": ("kilometre", "kilometres", 1000),
    "megabytes": ("gigabyte", "gigabytes", 1000),
    "centimetres": ("metre", "metres", 100),
}
"""Small unit of a property -> (big unit singular, plural, factor)."""

JSON_TYPES = {"date": "string", "time": "string", "code": "string", "enum": "string", "count": "integer",
              "measure": "integer", "total": "integer", "money": "number", "bool": "boolean",
              "flag": "boolean"}
WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
         "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
         "twenty")

DIRECT_MODES = {
    "date": ("iso", "long", "weekday_long"), "time": ("direct24", "direct12"), "count": ("digits", "words"),
    "measure": ("direct",), "money": ("direct",), "enum": ("direct",), "bool": ("direct",),
    "code": ("direct",),
}
INDIRECT_MODES = {
    "date": ("tomorrow", "day_after", "in_days", "next_weekday", "week", "two_weeks", "after_other"),
    "count": ("reference",), "measure": ("convert", "reference"), "money": ("reference",),
    "enum": ("reference",), "code": ("reference",),
}
LIMIT_MODES = {
    "date": ("limit_min", "limit_max"), "time": ("limit_min", "limit_max"),
    "count": ("limit_min", "limit_max"),
    "measure": ("limit_min", "limit_max"), "money": ("limit_max",),
}
FORMAT_KINDS = ("date", "time", "code")
REFERENCE_KINDS = ("count", "measure", "money", "enum", "code")
RELATIVE_DAYS = {"tomorrow": 1, "day_after": 2, "week": 7, "two_weeks": 14}

# --- wording -------------------------------------------------------------------------------------


INTRO = (
    "{org} runs an assistant for {business}. It can call the tool below.",
    "The assistant of {org} ({business}) has one tool, described by this schema.",
    "Tool available to the {business} assistant of {org}:",
)
CONVENTION_TITLES = ("How a call is judged:", "Rules for checking a proposed call:")
CONVENTIONS = (
    ("The call must pass the schema's JSON Schema keywords: required properties present, declared types, "
     "only listed values where a property lists its values, no property outside the schema.",
     "JSON Schema keywords apply as written: required properties are present, values have their declared "
     "types, a property with a list of values takes one of them, no other properties are used."),
    ("It must also follow every rule in a property's description: formats, ranges (a stated limit is itself "
     "allowed) and relations between properties.",
     "The rules written in the descriptions bind the call too: formats, ranges (a stated limit is itself "
     "allowed) and relations between properties."),
    ("Every value the user asks for is passed exactly, in the unit and format the description names (1 kg = "
     "1,000 grams, 1 km = 1,000 metres, 1 metre = 100 centimetres, 1 litre = 1,000 millilitres, 1 gigabyte = "
     "1,000 megabytes, 1 hour = 60 minutes); yes and no become true and false.",
     "Each requested value is passed exactly, converted to the unit and format of the description (1 kg = "
     "1,000 grams, 1 km = 1,000 metres, 1 metre = 100 centimetres, 1 litre = 1,000 millilitres, 1 gigabyte = "
     "1,000 megabytes, 1 hour = 60 minutes); yes/no become true/false."),
    ("Relative dates count from today: tomorrow = +1 day, the day after tomorrow = +2, in N days = +N, a "
     "week from today = +7, two weeks from today = +14, next <weekday> = the first such weekday after today, "
     "N days after the <date> = the date requested for that property + N.",
     "Relative dates are counted from today: \"tomorrow\" +1 day, \"the day after tomorrow\" +2, \"in N "
     "days\" +N, \"a week from today\" +7, \"two weeks from today\" +14, \"next <weekday>\" the first "
     "such weekday after today, \"N days after the <date>\" the date requested there +N."),
    ("\"The same as last time\" means the most recent earlier message; \"the same as in my message of "
     "<date>\" means the message of that date.",
     "\"The same as last time\" refers to the latest earlier message, \"the same as in my message of "
     "<date>\" to the message sent that day."),
    ("Asking for the maximum, minimum, earliest or latest the tool allows means the limit in that property's "
     "description.",
     "\"The maximum/minimum/earliest/latest the tool allows\" is the limit written in the property's "
     "description."),
    ("A property the user does not mention is left out unless a description rule requires it; it then takes "
     "the value the rule fixes.",
     "Unmentioned properties stay out of the call, except where a description rule requires them; then they "
     "take the value the rule fixes."),
)
CALL_HEADINGS = ("Proposed call:", "The assistant proposes this call:", "Call under review:")
REQUEST_OPENINGS = ("Please {verb} for me.", "Hi, I need to {verb}.", "Could you {verb}?")
REQUEST_CLOSINGS = ("", "Thank you.", "Thanks!")
HISTORY_OPENINGS = ("Please {verb}.", "I need to {verb}.")
CLAUSES = ("{Label}: {phrase}.", "The {label} should be {phrase}.", "I'd like the {label} to be {phrase}.",
           "Please set the {label} to {phrase}.")
"""How a message asks for one value. 1.3 replaces 1.2's form-filling "For the number of apprentices, use 3." with
what a person writes ("I'd like the number of apprentices to be 3.")."""
BOOL_CLAUSES = (("{Label}: yes.", "{Label}: no."), ("I want {obj}.", "I don't want {obj}."),
                ("With {obj}, please.", "Without {obj}, please."))
BOOL_OBJECTS = {
    "signature_required": "a signature on delivery", "interpreter": "an interpreter",
    "printed_invoice": "a printed invoice", "notify_payee": "a payee notification",
    "recording": "a session recording", "outage_allowed": "a power outage", "photo_report": "a photo report",
    "late_checkout": "a late checkout",
}
"""Yes/no properties that are countable nouns, with their article ("I want a printed invoice"); the other
labels ("gift wrapping", "nightly backups") read as they are."""
RELATIVE_CLAUSES = ("{Label}: {phrase}.", "The {label} should be {phrase}.")
"""Clauses for a date given relative to today ("in 4 days", "tomorrow"): "For the delivery date, use in 4
days" and "Please set the delivery date to tomorrow" are no English."""
RELATIVE_DATE_MODES = ("tomorrow", "day_after", "in_days", "next_weekday", "week", "two_weeks", "after_other")
REFERENCE_LAST = ("the same as last time",)
REFERENCE_DATED = "the same as in my message of {date}"
LIMIT_PHRASES = {
    ("date", "limit_min"): ("the earliest the tool allows", "the earliest date allowed"),
    ("date", "limit_max"): ("the latest the tool allows", "the latest date allowed"),
    ("time", "limit_min"): ("the earliest the tool allows", "the earliest time allowed"),
    ("time", "limit_max"): ("the latest the tool allows", "the latest time allowed"),
    ("count", "limit_min"): ("the minimum the tool allows", "the smallest number allowed"),
    ("count", "limit_max"): ("the maximum the tool allows", "the largest number allowed"),
    ("measure", "limit_min"): ("the minimum the tool allows", "the smallest amount allowed"),
    ("measure", "limit_max"): ("the maximum the tool allows", "the largest amount allowed"),
    ("money", "limit_max"): ("the maximum the tool allows", "the highest amount allowed"),
}
DESCRIPTION_OPENINGS = {
    "date": ("The {label}, written as YYYY-MM-DD.", "The {label} in the form YYYY-MM-DD."),
    "time": ("The {label} as a 24-hour time, HH:MM.", "The {label}, written HH:MM on the 24-hour clock."),
    "count": ("The {label}, a whole number from {lo} to {hi}.",
              "The {label}: a whole number, at least {lo} and at most {hi}."),
    "measure": ("The {label} in {unit}, a whole number from {lo} to {hi}.",
                "The {label}, given in {unit} as a whole number: at least {lo} and at most {hi}."),
    "money": ("The {label} in {currency}, with at most two decimals; it may not exceed {max}.",
              "The {label}, an amount in {currency} with two decimals at most, no more than {max}."),
    "enum": ("The {label}; one of the listed values.", "The {label}, chosen from the listed values."),
    "bool": ("The {label}: true if wanted, false if not.", "The {label}; true when wanted, otherwise false."),
    "code": ("The {label}, written {prefix}-#### (the capital letters {prefix}, a dash and four digits).",
             "The {label}: the letters {prefix} in capitals, a dash, then four digits ({prefix}-####)."),
    "flag": ("The {label}. It must be true when the {src} is {threshold} or more; leave it out otherwise.",
             "The {label}: set it to true if the {src} is at least {threshold}, and leave it out otherwise."),
    "total": ("The {label}. Always give it: it must equal the {a} plus the {b}.",
              "The {label}; always given, equal to the {a} plus the {b}."),
}
DATE_MIN = (" It must be at least {n} {days} after today.", " It must fall {n} or more days after today.")
DATE_MAX = (" It must be no more than {n} {days} after today.", " It may be at most {n} {days} after today.")
DATE_AFTER = (" It must be later than the {other}.", " It has to fall after the {other}.")
TIME_EARLIEST = (" Not earlier than {t}.", " The earliest allowed is {t}.")
TIME_LATEST = (" Not later than {t}.", " The latest allowed is {t}.")


@dataclass(frozen=True)
class ToolcallValidConfig(FamilyConfig):
    """Schema sizes and conversation lengths per level."""

    properties: tuple[int, int, int] = (6, 9, 12)
    """Top-level schema properties at levels 1, 2, 3."""
    history: tuple[tuple[int, int], tuple[int, int], tuple[int, int]] = ((2, 2), (2, 3), (3, 4))
    """Earlier messages (min, max) at levels 1, 2, 3."""
    unmentioned: tuple[tuple[int, int], tuple[int, int], tuple[int, int]] = ((0, 1), (1, 2), (1, 3))
    """Optional schema properties the request leaves out (min, max) per level."""
    indirect_share: tuple[float, float, float] = (0.25, 0.35, 0.45)
    """Chance that a mentioned property is given indirectly, per level."""

    def validate(self) -> None:
        super().validate()
        if self.items_per_level % 2:
            raise ValueError("items_per_level must be even (the family is built from pairs)")
        if (3 * (self.items_per_level // 2)) % len(VARIATIONS):
            raise ValueError(f"the pairs of a draw must split evenly over {len(VARIATIONS)} deviation types")
        for n in self.properties:
            if not 6 <= n <= 14:
                raise ValueError(f"properties per schema must be between 6 and 14, got {n}")
        for lo, hi in self.history:
            if not 2 <= lo <= hi <= 5:
                raise ValueError(f"earlier messages must satisfy 2 <= min <= max <= 5, got {(lo, hi)}")
        for (lo, hi), n in zip(self.unmentioned, self.properties, strict=True):
            if not 0 <= lo <= hi or hi > n - 5:
                raise ValueError(f"unmentioned properties {(lo, hi)} do not fit a schema of {n}")
        for share in self.indirect_share:
            if not 0.0 <= share <= 1.0:
                raise ValueError(f"indirect_share must be a probability, got {share}")


# --- small value helpers ---------------------------------------------------------------------------

ABSENT = "<absent>"
"""Marker for a negative candidate that leaves the property out."""


def _date(iso: str) -> dt.date:
    return dt.date.fromisoformat(iso)


def _hhmm(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def _minutes(hhmm: str) -> int:
    return int(hhmm[:2]) * 60 + int(hhmm[3:])


def _twelve(hhmm: str) -> str:
    h, m = int(hhmm[:2]), int(hhmm[3:])
    suffix = "am" if h < 12 else "pm"
    return f"{(h - 1) % 12 + 1}:{m:02d} {suffix}"


def _big(value: Decimal) -> str:
    text = format(value.normalize(), "f")
    return text


def _days(n: int) -> str:
    return "day" if n == 1 else "days"


UNIT_SINGULAR = {"grams": "gram", "minutes": "minute", "millilitres": "millilitre", "metres": "metre",
                 "megabytes": "megabyte", "centimetres": "centimetre"}


def _measure_text(n: int, unit: str) -> str:
    return f"{grouped(n)} {UNIT_SINGULAR[unit] if n == 1 else unit}"


def _money_value(cents: int) -> float:
    return cents / 100


def _canon(value: Any) -> str:
    """A type-strict comparison key: 3, "3", 3.0 and True all differ; lists compare by content."""
    return f"{type(value).__name__}:{value!r}"


def _next_weekday(today: dt.date, weekday: int) -> dt.date:
    ahead = (weekday - today.weekday()) % 7
    return today + dt.timedelta(days=ahead or 7)


# --- case sampling ---------------------------------------------------------------------------------


def _props_by_key(case: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {p["key"]: p for p in case["props"]}


def _choose_props(rng: random.Random, tool: Tool, n: int, structure: str | None) -> list[PropSpec]:
    """n properties of the tool in catalogue order; flags bring their source, totals their parts."""
    specs = {p.key: p for p in tool.props}

    def needs(spec: PropSpec) -> list[str]:
        if spec.kind == "flag":
            return [spec.params[0], spec.key]
        if spec.kind == "total":
            return [spec.params[0], spec.params[1], spec.key]
        return [spec.key]

    chosen: list[str] = []
    if structure is not None:
        spec = next(p for p in tool.props if p.kind == structure)
        chosen += needs(spec)
    pool = [p for p in tool.props if p.key not in chosen]
    rng.shuffle(pool)
    for spec in pool:
        if len(chosen) >= n:
            break
        extra = [k for k in needs(spec) if k not in chosen]
        if len(chosen) + len(extra) <= n:
            chosen += extra
    if len(chosen) != n:
        raise RuntimeError(f"{NAME}: could not choose {n} properties of {tool.name}")
    order = [p.key for p in tool.props]
    return [specs[k] for k in sorted(chosen, key=order.index)]


def _description(rng: random.Random, spec: PropSpec, prop: dict[str, Any], case: dict[str, Any],
                 labels: dict[str, str]) -> str:
    rules = prop["rules"]
    kind = spec.kind
    opening = pick(rng, DESCRIPTION_OPENINGS[kind])
    text = ""
    if kind == "date":
        text = opening.format(label=spec.label)
        if "min_days" in rules:
            text += pick(rng, DATE_MIN).format(n=rules["min_days"], days=_days(rules["min_days"]))
        if "max_days" in rules:
            text += pick(rng, DATE_MAX).format(n=rules["max_days"], days=_days(rules["max_days"]))
        if "after" in rules:
            text += pick(rng, DATE_AFTER).format(other=labels[rules["after"]])
    elif kind == "time":
        text = opening.format(label=spec.label)
        if "earliest" in rules:
            text += pick(rng, TIME_EARLIEST).format(t=rules["earliest"])
        if "latest" in rules:
            text += pick(rng, TIME_LATEST).format(t=rules["latest"])
    elif kind == "count":
        text = opening.format(label=spec.label, lo=rules["min"], hi=rules["max"])
    elif kind == "measure":
        text = opening.format(label=spec.label, unit=rules["unit"], lo=grouped(rules["min"]),
                              hi=grouped(rules["max"]))
    elif kind == "money":
        text = opening.format(label=spec.label, currency=rules["currency"],
                              max=money(rules["max_cents"], rules["currency"]))
    elif kind in ("enum", "bool"):
        text = opening.format(label=spec.label)
    elif kind == "code":
        text = opening.format(label=spec.label, prefix=rules["prefix"])
    elif kind == "flag":
        src = _props_by_key(case)[rules["src"]]
        threshold = _threshold_text(src, rules["threshold"])
        text = opening.format(label=spec.label, src=src["label"], threshold=threshold)
    elif kind == "total":
        a, b = rules["parts"]
        text = opening.format(label=spec.label, a=labels[a], b=labels[b])
    return text


def _threshold_text(src: dict[str, Any], threshold: int) -> str:
    if src["kind"] == "money":
        return money(threshold, src["rules"]["currency"])
    if src["kind"] == "measure":
        return _measure_text(threshold, src["rules"]["unit"])
    return str(threshold)


def _pick_mode(rng: random.Random, kind: str, level_share: float, allow: Sequence[str] | None = None) -> str:
    if allow is not None:
        return pick(rng, list(allow))
    r = rng.random()
    if kind in LIMIT_MODES and r < 0.08:
        return pick(rng, LIMIT_MODES[kind])
    if kind in INDIRECT_MODES and r < 0.08 + level_share:
        return pick(rng, INDIRECT_MODES[kind])
    return pick(rng, DIRECT_MODES[kind])


def _random_value(rng: random.Random, prop: dict[str, Any], avoid: Sequence[Any] = ()) -> Any:
    """A value valid under the property's own rules (for counts, measures, money, enums, codes, bools)."""
    rules = prop["rules"]
    for _ in range(200):
        kind = prop["kind"]
        if kind == "count":
            value: Any = rng.randint(max(rules["min"], 1), max(rules["max"] - 1, 1))
        elif kind == "measure":
            lo, hi = rules["min"], rules["max"]
            step = pick(rng, (1, 5, 10, 50, 100))
            value = max(lo + 1, (rng.randint(lo + 1, hi - 1) // step) * step)
        elif kind == "money":
            cents = rng.randint(500, rules["max_cents"] - 1)
            if rng.random() < 0.5:
                cents -= cents % 100
            value = _money_value(max(cents, 100))
        elif kind == "enum":
            value = pick(rng, prop["enum"])
        elif kind == "code":
            value = f"{rules['prefix']}-{rng.randrange(1000, 10000)}"
        elif kind == "bool":
            value = rng.random() < 0.5
        else:
            raise ValueError(f"no random value for kind {kind}")
        if _canon(value) not in {_canon(a) for a in avoid}:
            return value
    raise RuntimeError(f"{NAME}: no fresh value for {prop['key']}")


def _sample_case(
    rng: random.Random, level: int, variation: str, config: ToolcallValidConfig
) -> dict[str, Any]:
    tool = pick(rng, TOOLS)
    domain = DOMAIN_BY_NAME[tool.domain]
    forge = NameForge(rng, domain.name)
    org = forge.organisation(tool.domain)
    n = config.properties[level - 1]
    structure = pick(rng, ("flag", "total")) if variation == "description_dependency" else None
    specs = _choose_props(rng, tool, n, structure)
    by_key = {s.key: s for s in specs}
    labels = {s.key: s.label for s in specs}
    share = config.indirect_share[level - 1]
    today = dt.date(2026, 1, 5) + dt.timedelta(days=rng.randrange(320))

    derived = [s.key for s in specs if s.kind in ("flag", "total")]
    linked = {k for s in specs if s.kind in ("flag", "total") for k in s.params}
    plain = [s.key for s in specs if s.key not in derived]
    dates = [s.key for s in specs if s.kind == "date"]

    # the target of the planned deviation, and its mode
    target_mode: dict[str, str] = {}
    target: str
    sub = ""
    if variation == "description_dependency":
        target = next(s.key for s in specs if s.kind == structure)
    elif variation == "missing_required":
        target = pick(rng, _or_retry([k for k in plain if k not in linked]))
    elif variation == "wrong_type":
        totals = [s.key for s in specs if s.kind == "total"]
        target = pick(rng, _or_retry([k for k in plain if k not in linked] + totals))
    elif variation == "contradicts_direct":
        target = pick(rng, plain)
        target_mode[target] = pick(rng, DIRECT_MODES[by_key[target].kind])
    elif variation == "misread_indirect":
        options = [k for k in plain if by_key[k].kind in INDIRECT_MODES and k not in linked]
        target = pick(rng, _or_retry(options))
        allowed = list(INDIRECT_MODES[by_key[target].kind])
        if by_key[target].kind == "date" and not (len(dates) == 2 and target == dates[1]):
            allowed.remove("after_other")
        target_mode[target] = pick(rng, allowed)
    else:  # description_format_range
        formats = [k for k in plain if by_key[k].kind in FORMAT_KINDS]
        limits = [k for k in plain if by_key[k].kind in LIMIT_MODES and k not in linked]
        sub = pick(rng, ("format", "limit")) if formats and limits else ("format" if formats else "limit")
        target = pick(rng, _or_retry(formats if sub == "format" else limits))
        if sub == "limit":
            target_mode[target] = pick(rng, LIMIT_MODES[by_key[target].kind])
        else:
            kind = by_key[target].kind
            indirect = INDIRECT_MODES.get(kind, ()) if kind != "date" else ("in_days", "week")
            modes = DIRECT_MODES[kind] + indirect
            target_mode[target] = pick(rng, modes)

    # properties the request leaves out (optional, never the target or a linked one)
    lo, hi = config.unmentioned[level - 1]
    free = [k for k in plain if k != target and k not in linked]
    rng.shuffle(free)
    unmentioned = sorted(free[: rng.randint(lo, min(hi, len(free)))])
    mentioned = [k for k in plain if k not in unmentioned]

    # modes of the mentioned properties
    modes: dict[str, str] = {}
    flag_spec = next((s for s in specs if s.kind == "flag"), None)
    for key in mentioned:
        kind = by_key[key].kind
        if key in target_mode:
            modes[key] = target_mode[key]
            continue
        if flag_spec is not None and key == flag_spec.params[0]:
            modes[key] = pick(rng, DIRECT_MODES[kind] + ("reference",))
            continue
        mode = _pick_mode(rng, kind, share)
        if mode == "after_other" and not (len(dates) == 2 and key == dates[1] and dates[0] in mentioned):
            mode = pick(rng, DIRECT_MODES[kind])
        modes[key] = mode
    if variation == "misread_indirect" and modes[target] == "after_other" and dates[0] not in mentioned:
        raise _Retry("after_other needs the other date")

    # rules and values
    props: list[dict[str, Any]] = []
    clause_data: dict[str, dict[str, Any]] = {}
    offsets: dict[str, int] = {}
    for spec in specs:
        prop: dict[str, Any] = {"key": spec.key, "label": spec.label, "kind": spec.kind,
                                "type": JSON_TYPES[spec.kind], "required": False, "rules": {}}
        if spec.kind == "enum":
            prop["enum"] = list(spec.params)
        props.append(prop)
    pmap = {p["key"]: p for p in props}

    for spec in specs:
        prop = pmap[spec.key]
        rules = prop["rules"]
        mode = modes.get(spec.key)
        if spec.kind == "count":
            lo_c, hi_from, hi_to = spec.params
            rules.update({"min": lo_c, "max": rng.randint(hi_from, hi_to)})
        elif spec.kind == "measure":
            unit, lo_m, hi_from, hi_to = spec.params
            step = 100 if hi_to >= 10000 else 10
            top = rng.randint(hi_from // step, hi_to // step) * step
            rules.update({"unit": unit, "min": lo_m, "max": top})
        elif spec.kind == "money":
            top = rng.randint(spec.params[0] // 100, spec.params[1] // 100) * 10000
            rules.update({"currency": domain.currency, "max_cents": top})
        elif spec.kind == "code":
            rules["prefix"] = spec.params[0]
        elif spec.kind == "total":
            rules["parts"] = list(spec.params)
        elif spec.kind == "time":
            if mode == "limit_min":
                rules["earliest"] = _hhmm(rng.randrange(6 * 4, 10 * 4) * 15)
            elif mode == "limit_max":
                rules["latest"] = _hhmm(rng.randrange(16 * 4, 21 * 4) * 15)
            else:
                if rng.random() < 0.5:
                    rules["earliest"] = _hhmm(rng.randrange(6 * 2, 9 * 2) * 30)
                if rng.random() < 0.5:
                    rules["latest"] = _hhmm(rng.randrange(18 * 2, 21 * 2) * 30)

    # values of mentioned properties (dates first, in catalogue order)
    for key in mentioned:
        spec = by_key[key]
        prop = pmap[key]
        rules = prop["rules"]
        mode = modes[key]
        data: dict[str, Any] = {}
        clause_data[key] = data
        if spec.kind == "date":
            earlier = offsets.get(dates[0]) if key == dates[-1] and len(dates) == 2 else None
            floor = (earlier or 0) + 1
            if mode in RELATIVE_DAYS:
                off = RELATIVE_DAYS[mode]
            elif mode == "in_days":
                off = rng.randint(max(3, floor), max(3, floor) + 17)
                data["days"] = off
            elif mode == "next_weekday":
                data["weekday"] = rng.randrange(7)
                off = (_next_weekday(today, data["weekday"]) - today).days
            elif mode == "after_other":
                data["other"] = dates[0]
                data["days"] = rng.randint(2, 9)
                off = offsets[dates[0]] + data["days"]
            elif mode == "limit_min":
                off = rng.randint(max(2, floor), max(2, floor) + 8)
                rules["min_days"] = off
            elif mode == "limit_max":
                off = rng.randint(max(14, floor), max(14, floor) + 40)
                rules["max_days"] = off
            else:
                off = rng.randint(max(2, floor), max(2, floor) + 40)
                data["date"] = (today + dt.timedelta(days=off)).isoformat()
            if off < floor:
                raise _Retry("second date not after the first")
            offsets[key] = off
            if "min_days" not in rules and mode != "limit_max" and rng.random() < 0.4:
                rules["min_days"] = rng.randint(1, off)
            if "max_days" not in rules and mode != "limit_min" and rng.random() < 0.3:
                rules["max_days"] = off + rng.randint(0, 30)
            if earlier is not None and rng.random() < 0.6:
                rules["after"] = dates[0]
        elif spec.kind == "time":
            if mode == "limit_min":
                value = rules["earliest"]
            elif mode == "limit_max":
                value = rules["latest"]
            else:
                lo_t = _minutes(rules.get("earliest", "06:00"))
                hi_t = _minutes(rules.get("latest", "21:00"))
                value = _hhmm(rng.randrange(lo_t // 5 + 1, hi_t // 5) * 5)
                data["time"] = value
        elif spec.kind in ("count", "measure", "money"):
            if mode in ("limit_min", "limit_max"):
                continue
            if mode == "convert":
                unit = rules["unit"]
                factor = MEASURE_UNITS[unit][2]
                options = [b for b in _BIG_VALUES if rules["min"] < b * factor < rules["max"]
                           and (b * factor) == int(b * factor)]
                if not options:
                    raise _Retry("no convertible value")
                data["big"] = _big(pick(rng, options))
            elif mode == "words":
                data["number"] = rng.randint(max(rules["min"], 1), min(rules["max"] - 1, 20))
            elif mode in ("digits", "direct"):
                v = _random_value(rng, prop)
                if spec.kind == "money":
                    data["cents"] = round(v * 100)
                else:
                    data["number"] = v
        elif spec.kind in ("enum", "code", "bool") and mode == "direct":
            data["value"] = _random_value(rng, prop)

    # flag thresholds (the boundary: source exactly at the threshold, or one unit below it)
    for spec in specs:
        if spec.kind != "flag":
            continue
        src = pmap[spec.params[0]]
        threshold = _round_threshold(rng, src)
        unit = 1
        if variation == "description_dependency" and structure == "flag":
            at = rng.random() < 0.5
            source_value = threshold if at else threshold - unit
            _set_source_value(src, modes[src["key"]], clause_data[src["key"]], source_value)
        pmap[spec.key]["rules"] = {"src": src["key"], "threshold": threshold}

    # earlier messages, with the values that references point at
    h_lo, h_hi = config.history[level - 1]
    n_messages = rng.randint(h_lo, h_hi)
    back = sorted(rng.sample(range(4, 90), n_messages), reverse=True)
    history: list[dict[str, Any]] = [
        {"date": (today - dt.timedelta(days=d)).isoformat(), "opening": pick(rng, HISTORY_OPENINGS),
         "clauses": []}
        for d in back
    ]
    references = [k for k in mentioned if modes[k] == "reference"]
    for key in references:
        prop = pmap[key]
        if rng.random() < 0.5:
            index = n_messages - 1
            how = "last"
        else:
            index = rng.randrange(n_messages - 1)
            how = "dated"
        value = clause_data[key].pop("source_value", None)
        if value is None:
            value = _random_value(rng, prop)
        clause_data[key].update({"message": index, "how": how})
        for i, message in enumerate(history):
            if i == index:
                v = value
            elif (how == "last" and i == index - 1) or (how == "dated" and i == n_messages - 1) \
                    or rng.random() < 0.4:
                v = _random_value(rng, prop, avoid=[value])
            else:
                continue
            message["clauses"].append({"key": key, "value": v, "template": rng.randrange(len(CLAUSES))})
    noise_keys = [k for k in plain if by_key[k].kind in (*REFERENCE_KINDS, "bool") and k not in references]
    for message in history:
        have = {c["key"] for c in message["clauses"]}
        choices = [k for k in noise_keys if k not in have]
        rng.shuffle(choices)
        for key in choices[: rng.randint(1, 2) if len(message["clauses"]) < 3 else 0]:
            message["clauses"].append({"key": key, "value": _random_value(rng, pmap[key]),
                                       "template": rng.randrange(len(CLAUSES))})
        rng.shuffle(message["clauses"])
        if not message["clauses"]:
            key = pick(rng, noise_keys or plain)
            message["clauses"].append({"key": key, "value": _random_value(rng, pmap[key]),
                                       "template": rng.randrange(len(CLAUSES))})

    # request clauses
    clauses = [{"key": k, "mode": modes[k], "data": clause_data[k], "template": rng.randrange(len(CLAUSES))}
               for k in mentioned]
    rng.shuffle(clauses)

    # required properties: the missing_required target, about half of the rest of the call
    callers = mentioned + [s.key for s in specs if s.kind == "total"]
    for key in callers:
        pmap[key]["required"] = (variation == "missing_required" and key == target) or rng.random() < 0.55
    if not any(pmap[k]["required"] for k in callers):
        pmap[pick(rng, callers)]["required"] = True

    case: dict[str, Any] = {
        "domain": domain.name,
        "intro": pick(rng, INTRO).format(org=org, business=domain.business),
        "tool": {"name": tool.name, "description": tool.description.format(org=org), "verb": tool.verb},
        "props": props,
        "convention_title": pick(rng, CONVENTION_TITLES),
        "conventions": [pick(rng, variants) for variants in CONVENTIONS],
        "today": today.isoformat(),
        "history": history,
        "request": {"opening": pick(rng, REQUEST_OPENINGS), "closing": pick(rng, REQUEST_CLOSINGS),
                    "clauses": clauses},
        "call_heading": pick(rng, CALL_HEADINGS),
        "call": {"name": tool.name, "arguments": {}},
        "_target": target,
        "_sub": sub,
    }
    for spec in specs:
        pmap[spec.key]["description"] = _description(rng, spec, pmap[spec.key], case, labels)
    for clause in clauses:
        clause["text"] = _clause_text(rng, case, clause)
    for message in history:
        for clause in message["clauses"]:
            clause["text"] = _history_clause_text(case, clause)
    return case


class _Retry(Exception):
    """The sampled case cannot carry the planned deviation; draw again from the same stream."""


def _or_retry(options: list[str]) -> list[str]:
    if not options:
        raise _Retry("no property can carry the deviation")
    return options


_BIG_VALUES = tuple(Decimal(x) for x in (
    "0.25", "0.5", "0.75", "1", "1.25", "1.5", "2", "2.5", "3", "3.5", "4", "4.5", "5", "6", "7.5", "8",
    "10", "12", "12.5", "15", "20", "25", "40",
))


def _round_threshold(rng: random.Random, src: dict[str, Any]) -> int:
    rules = src["rules"]
    if src["kind"] == "money":
        top = rules["max_cents"] // 10000
        return rng.randint(max(1, top // 5), max(1, (4 * top) // 5)) * 10000
    if src["kind"] == "measure":
        lo, hi = rules["min"], rules["max"]
        step = 100 if hi >= 10000 else 10
        return rng.randint(max(1, (lo + step) // step), max(1, (hi * 3 // 4) // step)) * step
    return rng.randint(max(rules["min"] + 2, 2), max(rules["max"] - 1, 3))


def _set_source_value(src: dict[str, Any], mode: str, data: dict[str, Any], value: int) -> None:
    """Put the flag's source exactly at (or one unit below) the threshold."""
    if src["kind"] == "money":
        if mode == "reference":
            data["source_value"] = _money_value(value)
        else:
            data["cents"] = value
        return
    if mode == "reference":
        data["source_value"] = value
    elif mode == "words" and value > 20:
        raise _Retry("number too large for words")
    else:
        data["number"] = value


# --- the correct call ------------------------------------------------------------------------------


def _clause(case: dict[str, Any], key: str) -> dict[str, Any] | None:
    for clause in case["request"]["clauses"]:
        if clause["key"] == key:
            return clause
    return None


def _history_value(case: dict[str, Any], key: str, message: int) -> Any:
    for clause in case["history"][message]["clauses"]:
        if clause["key"] == key:
            return clause["value"]
    raise KeyError(f"message {message} does not state {key}")


def intended(case: dict[str, Any], key: str) -> Any:
    """The value the request asks for, in the schema's unit and format (mentioned properties only)."""
    clause = _clause(case, key)
    if clause is None:
        raise KeyError(key)
    prop = _props_by_key(case)[key]
    rules, mode, data = prop["rules"], clause["mode"], clause["data"]
    today = _date(case["today"])
    kind = prop["kind"]
    if mode == "reference":
        return _history_value(case, key, data["message"])
    if kind == "date":
        if mode in ("iso", "long", "weekday_long"):
            return data["date"]
        if mode in RELATIVE_DAYS:
            return (today + dt.timedelta(days=RELATIVE_DAYS[mode])).isoformat()
        if mode == "in_days":
            return (today + dt.timedelta(days=data["days"])).isoformat()
        if mode == "next_weekday":
            return _next_weekday(today, data["weekday"]).isoformat()
        if mode == "after_other":
            return (_date(intended(case, data["other"])) + dt.timedelta(days=data["days"])).isoformat()
        if mode == "limit_min":
            return (today + dt.timedelta(days=rules["min_days"])).isoformat()
        return (today + dt.timedelta(days=rules["max_days"])).isoformat()
    if kind == "time":
        if mode == "limit_min":
            return rules["earliest"]
        if mode == "limit_max":
            return rules["latest"]
        return data["time"]
    if kind in ("count", "measure"):
        if mode == "limit_min":
            return rules["min"]
        if mode == "limit_max":
            return rules["max"]
        if mode == "convert":
            return int(Decimal(data["big"]) * MEASURE_UNITS[rules["unit"]][2])
        return data["number"]
    if kind == "money":
        if mode == "limit_max":
            return _money_value(rules["max_cents"])
        return _money_value(data["cents"])
    return data["value"]


def expected_call(case: dict[str, Any]) -> dict[str, Any]:
    """The correct arguments: every mentioned value, plus what the description rules require."""
    args: dict[str, Any] = {}
    for prop in case["props"]:
        key = prop["key"]
        if _clause(case, key) is not None:
            args[key] = intended(case, key)
    for prop in case["props"]:
        rules = prop["rules"]
        if prop["kind"] == "total":
            args[prop["key"]] = sum(args[part] for part in rules["parts"])
        elif prop["kind"] == "flag" and rules["src"] in args:
            src = _props_by_key(case)[rules["src"]]
            value = args[rules["src"]]
            amount = round(value * 100) if src["kind"] == "money" else value
            if amount >= rules["threshold"]:
                args[prop["key"]] = True
    order = [p["key"] for p in case["props"]]
    return {k: args[k] for k in sorted(args, key=order.index)}


def answer(case: dict[str, Any]) -> str:
    """yes when the proposed arguments are exactly the correct ones (type-strict)."""
    expected = expected_call(case)
    given = case["call"]["arguments"]
    same = sorted(given) == sorted(expected)
    same = same and all(_canon(given[k]) == _canon(expected[k]) for k in expected)
    return "yes" if same else "no"


# --- classifying a call (generator-side check that a negative carries exactly one deviation) -------


def _type_ok(prop: dict[str, Any], value: Any) -> bool:
    t = prop["type"]
    if t == "string":
        return isinstance(value, str)
    if t == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if t == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    return isinstance(value, bool)


def _format_ok(prop: dict[str, Any], value: Any) -> bool:
    kind = prop["kind"]
    if kind == "date":
        try:
            return len(value) == 10 and dt.date.fromisoformat(value).isoformat() == value
        except ValueError:
            return False
    if kind == "time":
        return len(value) == 5 and value[2] == ":" and value[:2].isdigit() and value[3:].isdigit() \
            and int(value[:2]) < 24 and int(value[3:]) < 60
    if kind == "code":
        prefix = prop["rules"]["prefix"]
        return value.startswith(prefix + "-") and len(value) == len(prefix) + 5 and value[-4:].isdigit()
    if kind == "money":
        return round(value * 100) == value * 100 or abs(round(value * 100) - value * 100) < 1e-6
    return True


def _range_ok(case: dict[str, Any], prop: dict[str, Any], value: Any) -> bool:
    rules = prop["rules"]
    kind = prop["kind"]
    if kind in ("count", "measure"):
        return rules["min"] <= value <= rules["max"]
    if kind == "money":
        return 0 < round(value * 100) <= rules["max_cents"]
    if kind == "date":
        days = (_date(value) - _date(case["today"])).days
        return rules.get("min_days", -10**6) <= days <= rules.get("max_days", 10**6)
    if kind == "time":
        return rules.get("earliest", "00:00") <= value <= rules.get("latest", "23:59")
    return True


def classify(case: dict[str, Any], args: dict[str, Any]) -> set[str]:
    """Which kinds of rule a call breaks: schema, format, range, dependency, request."""
    props = _props_by_key(case)
    cats: set[str] = set()
    typed: dict[str, bool] = {}
    for key, value in args.items():
        prop = props.get(key)
        if prop is None:
            cats.add("schema")
            continue
        typed[key] = _type_ok(prop, value) and ("enum" not in prop or value in prop["enum"])
        if not typed[key]:
            cats.add("schema")
        elif not _format_ok(prop, value):
            cats.add("format")
        elif not _range_ok(case, prop, value):
            cats.add("range")
    if any(p["required"] and k not in args for k, p in props.items()):
        cats.add("schema")
    for key, prop in props.items():
        rules = prop["rules"]
        if prop["kind"] == "flag":
            src = props[rules["src"]]
            need = False
            if rules["src"] in args and typed.get(rules["src"]):
                value = args[rules["src"]]
                need = (round(value * 100) if src["kind"] == "money" else value) >= rules["threshold"]
            if (need and args.get(key) is not True) or (not need and key in args):
                cats.add("dependency")
        elif prop["kind"] == "total":
            parts = rules["parts"]
            checkable = typed.get(key) and all(typed.get(p) for p in parts)
            if key not in args or (checkable and args[key] != sum(args[p] for p in parts)):
                cats.add("dependency")
        elif "after" in rules and key in args and rules["after"] in args:
            other = rules["after"]
            checkable = typed.get(key) and typed.get(other) and _format_ok(prop, args[key]) \
                and _format_ok(props[other], args[other])
            if checkable and args[key] <= args[other]:
                cats.add("dependency")
    expected = expected_call(case)
    for key in props:
        if props[key]["kind"] in ("flag", "total"):
            continue
        if key in expected and (key not in args or _canon(args[key]) != _canon(expected[key])):
            cats.add("request")
        if key in args and key not in expected:
            cats.add("request")
    return cats


EXPECTED_CATEGORIES: dict[str, tuple[frozenset[str], ...]] = {
    "missing_required": (frozenset({"schema", "request"}),),
    "wrong_type": (frozenset({"schema", "request"}), frozenset({"schema"})),
    "contradicts_direct": (frozenset({"request"}),),
    "misread_indirect": (frozenset({"request"}),),
    "description_format_range": (frozenset({"format", "request"}), frozenset({"range", "request"})),
    "description_dependency": (frozenset({"dependency"}),),
}


# --- negative candidates ---------------------------------------------------------------------------


def _shift_date(iso: str, days: int) -> str:
    return (_date(iso) + dt.timedelta(days=days)).isoformat()


def _candidates(rng: random.Random, case: dict[str, Any], key: str, variation: str, sub: str) -> list[Any]:
    props = _props_by_key(case)
    prop = props[key]
    kind = prop["kind"]
    expected = expected_call(case)
    value = expected.get(key, ABSENT)
    clause = _clause(case, key)
    mode = clause["mode"] if clause else ""
    out: list[Any] = []
    if variation == "missing_required":
        return [ABSENT]
    if variation == "wrong_type":
        if kind == "date":
            return [int(value.replace("-", ""))]
        if kind == "time":
            return [int(value.replace(":", ""))]
        if kind in ("code", "enum"):
            return [[value]]
        if kind in ("count", "measure", "total"):
            return [str(value)]
        if kind == "money":
            return [f"{value:.2f}"]
        return ["true" if value else "false"]
    if variation == "contradicts_direct":
        if kind == "date":
            d = _date(value)
            out = [_shift_date(value, s) for s in (1, -1, 2, -2, 7, -7)]
            if d.day <= 12 and d.day != d.month:
                out.insert(0, d.replace(month=d.day, day=d.month).isoformat())
        elif kind == "time":
            m = _minutes(value)
            out = [_hhmm(x) for x in (m + 30, m - 30, m + 60, m - 60, m + 15, m - 15) if 0 <= x < 1440]
            if mode == "direct12" and m >= 12 * 60 + 60:
                out.insert(0, _hhmm(m - 12 * 60))
        elif kind in ("count", "measure"):
            out = [value + d for d in (1, -1, 2, -2, 10, -10, 100, -100)]
            text = str(value)
            if len(text) >= 2 and text[-1] != text[-2]:
                out.insert(0, int(text[:-2] + text[-1] + text[-2]))
        elif kind == "money":
            cents = round(value * 100)
            out = [_money_value(cents + d) for d in (1000, -1000, 100, -100, 10000, -10000)]
        elif kind == "enum":
            out = [v for v in prop["enum"] if v != value]
        elif kind == "code":
            digits = value[-4:]
            swapped = digits[:2] + digits[3] + digits[2]
            out = [value[:-4] + swapped] if swapped != digits else []
            out += [value[:-4] + digits[:3] + str((int(digits[3]) + k) % 10) for k in (1, 3)]
        elif kind == "bool":
            out = [not value]
    elif variation == "misread_indirect":
        today = case["today"]
        if mode == "reference":
            out = [c["value"] for m in case["history"] for c in m["clauses"] if c["key"] == key]
        elif mode == "convert":
            factor = MEASURE_UNITS[prop["rules"]["unit"]][2]
            big = Decimal(clause["data"]["big"])
            out = [int(big * f) for f in (10, 100, 1000, 10000) if f != factor and big * f == int(big * f)]
            if factor == 60:
                whole, frac = divmod(big, 1)
                out.insert(0, int(whole * 60 + frac * 100))
                out.insert(0, int(big * 100))
        elif mode == "after_other":
            out = [_shift_date(today, clause["data"]["days"]), _shift_date(value, 1), _shift_date(value, -1)]
        elif mode == "next_weekday":
            out = [_shift_date(value, 7), _shift_date(value, -7)]
        elif mode in RELATIVE_DAYS or mode == "in_days":
            out = [_shift_date(value, -1), _shift_date(value, 1)]
    elif variation == "description_format_range":
        if sub == "limit":
            if kind == "date":
                out = [_shift_date(value, -1 if mode == "limit_min" else 1)]
            elif kind == "time":
                out = [_hhmm(_minutes(value) + (-1 if mode == "limit_min" else 1))]
            elif kind == "money":
                out = [_money_value(round(value * 100) + 1)]
            else:
                out = [value + (-1 if mode == "limit_min" else 1)]
        elif kind == "date":
            d = _date(value)
            out = [f"{d.day:02d}/{d.month:02d}/{d.year}", f"{d.year}/{d.month:02d}/{d.day:02d}",
                   long_date(d), f"{d.month:02d}/{d.day:02d}/{d.year}"]
            if d.month < 10 or d.day < 10:
                out.append(f"{d.year}-{d.month}-{d.day}")
        elif kind == "time":
            out = [_twelve(value), value.replace(":", "."), value + ":00", value.replace(":", "h")]
        elif kind == "code":
            out = [value.lower(), value.replace("-", ""), value.replace("-", " "), value.replace("-", "_")]
    elif variation == "description_dependency":
        if kind == "flag":
            out = [ABSENT] if value is True else [True]
        elif kind == "total":
            a, b = (expected[p] for p in prop["rules"]["parts"])
            out = [v for v in (a, b, a + b + 1, a + b - 1) if v != a + b]
    rng.shuffle(out)
    return out


# --- rendering -------------------------------------------------------------------------------------


def _value_phrase(rng: random.Random, case: dict[str, Any], clause: dict[str, Any]) -> str:
    prop = _props_by_key(case)[clause["key"]]
    kind, mode, data = prop["kind"], clause["mode"], clause["data"]
    if mode == "reference":
        if data["how"] == "last":
            return pick(rng, REFERENCE_LAST)
        return REFERENCE_DATED.format(date=long_date(_date(case["history"][data["message"]]["date"])))
    if mode in ("limit_min", "limit_max"):
        return pick(rng, LIMIT_PHRASES[(kind, mode)])
    if kind == "date":
        if mode == "iso":
            return data["date"]
        if mode == "long":
            return long_date(_date(data["date"]))
        if mode == "weekday_long":
            return weekday_date(_date(data["date"]))
        if mode == "tomorrow":
            return "tomorrow"
        if mode == "day_after":
            return "the day after tomorrow"
        if mode == "in_days":
            return f"in {data['days']} {_days(data['days'])}"
        if mode == "next_weekday":
            return f"next {WEEKDAYS[data['weekday']]}"
        if mode == "week":
            return "a week from today"
        if mode == "two_weeks":
            return "two weeks from today"
        other = _props_by_key(case)[data["other"]]["label"]
        return f"{data['days']} {_days(data['days'])} after the {other}"
    if kind == "time":
        return data["time"] if mode == "direct24" else _twelve(data["time"])
    if kind == "count":
        return WORDS[data["number"]] if mode == "words" else str(data["number"])
    if kind == "measure":
        unit = prop["rules"]["unit"]
        if mode == "convert":
            single, plural, _ = MEASURE_UNITS[unit]
            return f"{data['big']} {single if data['big'] == '1' else plural}"
        return _measure_text(data["number"], unit)
    if kind == "money":
        return money(data["cents"], prop["rules"]["currency"])
    return str(data["value"])


def _plain_value_phrase(case: dict[str, Any], key: str, value: Any) -> str:
    prop = _props_by_key(case)[key]
    if prop["kind"] == "measure":
        return _measure_text(value, prop["rules"]["unit"])
    if prop["kind"] == "money":
        return money(round(value * 100), prop["rules"]["currency"])
    return str(value)


def _sentence(template: str, label: str, phrase: str) -> str:
    return template.format(Label=label[0].upper() + label[1:], label=label, phrase=phrase)


def _bool_sentence(template_index: int, key: str, label: str, value: bool) -> str:
    template = BOOL_CLAUSES[template_index % len(BOOL_CLAUSES)][0 if value else 1]
    return template.format(Label=label[0].upper() + label[1:], obj=BOOL_OBJECTS.get(key, label))


def _clause_text(rng: random.Random, case: dict[str, Any], clause: dict[str, Any]) -> str:
    prop = _props_by_key(case)[clause["key"]]
    if prop["kind"] == "bool":
        return _bool_sentence(clause["template"], prop["key"], prop["label"], clause["data"]["value"])
    template = CLAUSES[clause["template"]]
    if prop["kind"] == "date" and clause["mode"] in RELATIVE_DATE_MODES:
        template = RELATIVE_CLAUSES[clause["template"] % len(RELATIVE_CLAUSES)]
    return _sentence(template, prop["label"], _value_phrase(rng, case, clause))


def _history_clause_text(case: dict[str, Any], clause: dict[str, Any]) -> str:
    prop = _props_by_key(case)[clause["key"]]
    if prop["kind"] == "bool":
        return _bool_sentence(clause["template"], prop["key"], prop["label"], clause["value"])
    phrase = _plain_value_phrase(case, clause["key"], clause["value"])
    return _sentence(CLAUSES[clause["template"]], prop["label"], phrase)


def schema_of(case: dict[str, Any]) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    for prop in case["props"]:
        entry: dict[str, Any] = {"type": prop["type"]}
        if "enum" in prop:
            entry["enum"] = prop["enum"]
        entry["description"] = prop["description"]
        properties[prop["key"]] = entry
    return {
        "name": case["tool"]["name"],
        "description": case["tool"]["description"],
        "parameters": {
            "type": "object",
            "properties": properties,
            "required": [p["key"] for p in case["props"] if p["required"]],
            "additionalProperties": False,
        },
    }


def _pretty(value: Any, depth: int = 0) -> str:
    """JSON with two-space indents, short lists of scalars kept on one line."""
    pad, inner = "  " * depth, "  " * (depth + 1)
    if isinstance(value, dict) and value:
        body = ",\n".join(f"{inner}{json.dumps(k)}: {_pretty(v, depth + 1)}" for k, v in value.items())
        return "{\n" + body + "\n" + pad + "}"
    if isinstance(value, list) and value and any(isinstance(v, dict | list) for v in value):
        body = ",\n".join(inner + _pretty(v, depth + 1) for v in value)
        return "[\n" + body + "\n" + pad + "]"
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def render(case: dict[str, Any]) -> str:
    verb = case["tool"]["verb"]
    lines = [case["intro"], "", "Tool schema:", _pretty(schema_of(case)), ""]
    lines += [case["convention_title"]]
    lines += [f"{i}. {rule}" for i, rule in enumerate(case["conventions"], start=1)]
    lines += ["", f"Today is {weekday_date(_date(case['today']))}.", ""]
    lines += ["Earlier messages from the same user:"]
    for message in case["history"]:
        text = " ".join([message["opening"].format(verb=verb), *(c["text"] for c in message["clauses"])])
        lines.append(f'- {long_date(_date(message["date"]))}: "{text}"')
    request = case["request"]
    parts = [request["opening"].format(verb=verb), *(c["text"] for c in request["clauses"])]
    if request["closing"]:
        parts.append(request["closing"])
    lines += ["", "Current request:", '"' + " ".join(parts) + '"', "", case["call_heading"]]
    lines.append(_pretty(case["call"]))
    return "\n".join(lines)


# --- contrast group ------------------------------------------------------------------------------


def plan(config: ToolcallValidConfig) -> list[GroupPlan]:
    pairs = config.items_per_level // 2
    return [
        GroupPlan(level=level, index=i, variation=VARIATIONS[((level - 1) * pairs + i) % len(VARIATIONS)])
        for level in (1, 2, 3)
        for i in range(pairs)
    ]


def _with_argument(case: dict[str, Any], key: str, value: Any) -> dict[str, Any]:
    args = dict(case["call"]["arguments"])
    if value is ABSENT:
        args.pop(key, None)
    else:
        args[key] = value
        order = [p["key"] for p in case["props"]]
        args = {k: args[k] for k in sorted(args, key=order.index)}
    return {**case, "call": {"name": case["call"]["name"], "arguments": args}}


def build_group(plan: GroupPlan, rng: random.Random, config: ToolcallValidConfig) -> Group:
    for _ in range(200):
        try:
            raw = _sample_case(rng, plan.level, plan.variation, config)
        except _Retry:
            continue
        target, sub = raw.pop("_target"), raw.pop("_sub")
        positive = {**raw, "call": {"name": raw["call"]["name"], "arguments": expected_call(raw)}}
        if classify(positive, positive["call"]["arguments"]):
            broken = classify(positive, positive["call"]["arguments"])
            raise RuntimeError(f"{NAME}: the correct call breaks a rule: {broken}")
        allowed = EXPECTED_CATEGORIES[plan.variation]
        negative = None
        for value in _candidates(rng, positive, target, plan.variation, sub):
            candidate = _with_argument(positive, target, value)
            if frozenset(classify(candidate, candidate["call"]["arguments"])) in allowed:
                negative = candidate
                break
        if negative is None:
            continue
        members = [
            Member(case=case, state=render(case), answer=answer(case), options=OPTIONS, variation=variation)
            for case, variation in ((positive, None), (negative, plan.variation))
        ]
        if members[0].answer != "yes" or members[1].answer != "no":
            raise RuntimeError(f"{NAME}: pair answers came out {members[0].answer}/{members[1].answer}")
        if rng.random() < 0.5:
            members.reverse()
        return Group(level=plan.level, domain=raw["domain"], members=tuple(members),
                     decisive=frozenset({f"call/arguments/{target}"}))
    raise RuntimeError(f"{NAME}: no valid {plan.variation} pair at level {plan.level} after 200 draws")


# --- partial-information heuristics ------------------------------------------------------------------


def _json_blocks(state: str) -> tuple[dict[str, Any], dict[str, Any]]:
    decoder = json.JSONDecoder()
    schema_at = state.index("Tool schema:\n") + len("Tool schema:\n")
    schema, _ = decoder.raw_decode(state, schema_at)
    call_at = state.rindex('\n{\n  "name"') + 1
    call, _ = decoder.raw_decode(state, call_at)
    return schema, call


def heuristic_schema_only(item: Item) -> dict[str, float]:
    """Validate the proposed arguments against the JSON schema (real jsonschema) and ignore the rest.

    Catches missing_required and wrong_type negatives only; every positive and the four other
    negative types validate, so the expected item accuracy is about 2/3.
    """
    import jsonschema

    state = item.state if isinstance(item.state, str) else json.dumps(item.state)
    schema, call = _json_blocks(state)
    validator = jsonschema.Draft202012Validator(schema["parameters"])
    valid = validator.is_valid(call.get("arguments", {}))
    return {"yes": 1.0, "no": 0.0} if valid else {"yes": 0.0, "no": 1.0}


register(FamilySpec(
    name=NAME,
    layer="D",
    version=VERSION,
    question=QUESTION,
    config_type=ToolcallValidConfig,
    plan=plan,
    build_group=build_group,
    expected_answers=lambda plan: ("no", "yes"),
    heuristics={"schema_only": heuristic_schema_only},
))
