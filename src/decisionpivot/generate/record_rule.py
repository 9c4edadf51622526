"""record_rule (layer F): which rule does the batch violate?

Story. A data team of an invented organisation checks a batch of records of one record type (a
shipment line, a lab order, an order line, ...) before loading it. The state names the record type
and its fields, lists 6 to 9 numbered integrity rules (``R1`` ...), the reference lists the rules
point to (approved and withdrawn site codes, a register of parties) and the batch as a table.
At most one rule is violated; options are one key per listed rule plus ``none``.

Thirteen rule types (``RULE_TYPES``), each bound to its own field(s) of the record type:

==============  ==========================================================================
required        a field must be filled (``owner``)
pattern         a code must match a described format (four formats, e.g. ``KV-4821``)
range           an integer lies between a minimum and a maximum, both included
unique          the record key does not repeat within the batch
reference       a site code is on the approved reference list (withdrawn codes are listed too)
compare         one integer field may not exceed another in the same record
conditional     if the priority field has its top value, the approver field must be filled
sum             two money parts add up to the total, to the cent
date_order      the end date is not before the start date (the same day is allowed)
enum            a status is one of the values the rule lists
length          a text field holds at most N characters, spaces included
foreign_key     a party id is the id of an entry of the party register (another list)
combination     no two records share the same (party id, start date) pair
==============  ==========================================================================

Groups. One base batch per group keeps every rule and carries the near misses: for each rule the
group breaks, the target record sits exactly at the edge in the base (the range maximum or
minimum itself, done equal to planned, end date equal to start date, a note of exactly N
characters, a key differing from another key in one digit, two records on the same start date
with different parties, a non-urgent record without approver). Each breaking member pushes one
field of one record one step past the edge (maximum + 1, one day earlier, one more character, one
cent off, the key or party of the near-miss twin, a withdrawn code, a status or format just
outside the rule); members differ from the base only in that field (``records/<j>/<field>``) and
break different rules, so the answers in a group all differ. 150 groups of four (50 per level); in
72 of them (24 per level) one member is the untouched batch (answer ``none``), the other members
break a rule. Breaking members: 528; each rule type is broken by 40 or 41 of them (8 types x 41,
5 x 40). Gold position: for each breaking member the plan picks, among the listed rule positions
not used in its group, the one least often gold so far among cases with the same number of rules
(``none`` is always the last option).

Levels: batches of 10, 16 and 24 records with 6-7, 7-8 and 8-9 rules; distractor fields without a
rule (one at level 1, one or two at level 2, two at level 3). Eight domains, two phrasings per
rule, two table styles.

Version history:
* 1.0 - first release.
* 1.1 - near misses at the edge of every broken rule in the base batch; thirteen types balanced to
  40/41 breaking items; gold rule position balanced by construction.
* 1.2 - text revision (core 1.2). Notes (the length rule's field) are built from whole phrases of the
  domain (``NOTE_PHRASES``: "Keep upright. Call ahead.", "Happy birthday!") instead of single random
  words ("door door", "After quiet a afternoon a label"); the breaking member swaps one phrase for
  one a character longer. Dictionary words: "adviser", "item_code", "back-ordered", "wait-listed",
  "licence assignment"; "an adult education organisation". Plausibility: the batch is exported after
  the last date it holds (was: sent on 7 July with pickups on 19-20 July); departments that handle the
  record type (no lab orders from radiology, no "front desk desk"); quantity ranges and planned
  counts per domain (1-10 guests, not 20-309); the finance range field is ``term_months`` (was
  ``instalments`` next to ``instalments_due``), the software one ``storage_gb`` (was ``seats`` next to
  ``seats_bought``); format codes have no vowels (no "697/AN") and a
  lower-case break lowers the first letter ("kV-4821", not "Kv-4821"). Each broken rule has its own
  target record (two near misses on one record could undo each other: a combination twin moving the
  start date away from a date-order edge).
* 1.3 - core 1.3 (issue #38), text a careful person would have written: names read like names of the
  case's region and kind (``common/names.py``: "Sanne Bakker", "Bakker Freight", "Vejle"; 1.2 wrote
  random syllables), each chosen by the draws its 1.2 name took. A gift message or a loan memo is about one
  thing: its first phrase says what, any further phrase is a signature or a remark (``ADDED_PHRASES``; 1.2
  glued "Get well soon. Congratulations!" and "Legal fees. Car lease."). The finance record type is a loan
  repayment (``repayment_id``) with loan memos only (1.2: a payment instruction with term, instalments,
  principal and interest whose memos said "Rent for March." in July or "Membership fee."). VAT in a retail
  batch is 25, 12 or 6 percent of the net price (1.2: any share, 0.7% to 23.8% in one batch). The intro no
  longer says the batch "must keep every integrity rule". Rules, breaks and answers are drawn as before, but
  notes draw from other lists, so most cases are drawn anew.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from collections import Counter
from dataclasses import dataclass
from functools import cache
from typing import Any

from decisionpivot.generate.common.domains import DOMAIN_BY_NAME
from decisionpivot.generate.common.formatting import long_date
from decisionpivot.generate.common.names import NameForge, invented_stem
from decisionpivot.generate.common.seeding import stable_seed
from decisionpivot.generate.common.wording import a_or_an, join_words, pick
from decisionpivot.generate.family import FamilyConfig, FamilySpec, Group, GroupPlan, Member
from decisionpivot.generate.registry import register
from decisionpivot.items import Item, Option

NAME = "record_rule"
VERSION = "1.3"
QUESTION = "Which rule does the batch violate?"
NONE_KEY = "none"
RULE_TYPES = (
    "required",
    "pattern",
    "range",
    "unique",
    "reference",
    "compare",
    "conditional",
    "sum",
    "date_order",
    "enum",
    "length",
    "foreign_key",
    "combination",
)
# Fields (roles) each rule type reads; the record key is always shown.
TYPE_ROLES = {
    "required": ("owner",),
    "pattern": ("code",),
    "range": ("qty",),
    "unique": ("key",),
    "reference": ("site",),
    "compare": ("done", "planned"),
    "conditional": ("priority", "approver"),
    "sum": ("net", "tax", "gross"),
    "date_order": ("start", "end"),
    "enum": ("status",),
    "length": ("note",),
    "foreign_key": ("party",),
    "combination": ("party", "start"),
}
ROLE_ORDER = (
    "key",
    "party",
    "site",
    "code",
    "status",
    "priority",
    "approver",
    "owner",
    "start",
    "end",
    "qty",
    "planned",
    "done",
    "net",
    "tax",
    "gross",
    "note",
)

# Per domain: record type and field names of every role, plus the value vocabularies.
SCHEMAS: dict[str, dict[str, Any]] = {
    "logistics": dict(
        departments=("dispatch", "warehouse", "fleet"),
        qty_lo=(1, 5, 10, 20),
        qty_span=(20, 400),
        planned_max=40,
        record="shipment line",
        key="line_id",
        prefix="SL",
        code="seal_code",
        qty="weight_kg",
        site="depot",
        sites="depots",
        party="shipper_id",
        register="shipper register",
        noun="shipper",
        done="pallets_loaded",
        planned="pallets_booked",
        net="freight",
        tax="surcharge",
        gross="total_charge",
        start="pickup_date",
        end="delivery_date",
        status="status",
        note="handling_note",
        owner="dispatcher",
        priority="service",
        approver="approved_by",
        urgent="express",
        levels=("economy", "standard", "express"),
        statuses=("booked", "loaded", "in transit", "delivered", "on hold", "returned", "cancelled"),
    ),
    "healthcare": dict(
        departments=("laboratory", "outpatient", "ward administration"),
        qty_lo=(1, 2, 5),
        qty_span=(10, 40),
        planned_max=12,
        record="lab order",
        key="order_id",
        prefix="LO",
        code="specimen_code",
        qty="volume_ml",
        site="ward",
        sites="wards",
        party="patient_id",
        register="patient index",
        noun="patient",
        done="tests_run",
        planned="tests_ordered",
        net="fee",
        tax="levy",
        gross="amount_due",
        start="ordered_on",
        end="reported_on",
        status="status",
        note="clinical_note",
        owner="requested_by",
        priority="urgency",
        approver="countersigned_by",
        urgent="stat",
        levels=("routine", "soon", "stat"),
        statuses=("ordered", "collected", "in analysis", "reported", "rejected", "on hold", "voided"),
    ),
    "retail": dict(
        departments=("order processing", "online sales", "stores"),
        qty_lo=(1, 2),
        qty_span=(10, 100),
        planned_max=40,
        record="order line",
        key="line_id",
        prefix="OL",
        code="item_code",
        qty="units",
        site="store",
        sites="stores",
        party="customer_id",
        register="customer list",
        noun="customer",
        done="units_shipped",
        planned="units_ordered",
        net="net_price",
        tax="vat",
        gross="gross_price",
        start="ordered_on",
        end="shipped_on",
        status="status",
        note="gift_message",
        owner="picker",
        priority="delivery",
        approver="supervisor",
        urgent="same-day",
        levels=("standard", "next-day", "same-day"),
        statuses=("placed", "picked", "packed", "shipped", "back-ordered", "refunded", "cancelled"),
    ),
    "software": dict(
        departments=("licensing", "sales", "support"),
        qty_lo=(1, 5, 10),
        qty_span=(20, 400),
        planned_max=60,
        record="licence assignment",
        key="assignment_id",
        prefix="LA",
        code="licence_key",
        qty="storage_gb",
        site="region",
        sites="regions",
        party="account_id",
        register="account list",
        noun="account",
        done="seats_used",
        planned="seats_bought",
        net="base_fee",
        tax="support_fee",
        gross="total_fee",
        start="valid_from",
        end="valid_until",
        status="status",
        note="comment",
        owner="account_manager",
        priority="tier",
        approver="approved_by",
        urgent="critical",
        levels=("basic", "plus", "critical"),
        statuses=("requested", "active", "suspended", "expired", "revoked", "pending", "trial"),
    ),
    "finance": dict(
        departments=("payments", "treasury", "lending"),
        qty_lo=(1, 2, 3),
        qty_span=(12, 60),
        planned_max=36,
        record="loan repayment",
        key="repayment_id",
        prefix="LR",
        code="batch_ref",
        qty="term_months",
        site="branch",
        sites="branches",
        party="client_id",
        register="client register",
        noun="client",
        done="instalments_paid",
        planned="instalments_due",
        net="principal",
        tax="interest",
        gross="total_due",
        start="value_date",
        end="settle_date",
        status="status",
        note="memo",
        owner="clerk",
        priority="route",
        approver="released_by",
        urgent="same-day",
        levels=("normal", "priority", "same-day"),
        statuses=("drafted", "approved", "released", "settled", "returned", "held", "cancelled"),
    ),
    "education": dict(
        departments=("admissions", "registry", "student services"),
        qty_lo=(1, 5, 10),
        qty_span=(20, 120),
        planned_max=40,
        record="enrolment",
        key="enrolment_id",
        prefix="EN",
        code="course_code",
        qty="credits",
        site="campus",
        sites="campuses",
        party="student_id",
        register="student roll",
        noun="student",
        done="sessions_attended",
        planned="sessions_held",
        net="tuition",
        tax="materials_fee",
        gross="total_fee",
        start="start_date",
        end="end_date",
        status="status",
        note="remark",
        owner="adviser",
        priority="mode",
        approver="mentor",
        urgent="intensive",
        levels=("regular", "evening", "intensive"),
        statuses=("applied", "admitted", "enrolled", "completed", "withdrawn", "deferred", "wait-listed"),
    ),
    "energy": dict(
        departments=("field service", "metering", "grid operations"),
        qty_lo=(5, 10, 15, 30),
        qty_span=(60, 400),
        planned_max=20,
        record="work order",
        key="order_id",
        prefix="WO",
        code="meter_serial",
        qty="duration_min",
        site="substation",
        sites="substations",
        party="customer_id",
        register="customer register",
        noun="customer",
        done="meters_replaced",
        planned="meters_planned",
        net="labour",
        tax="parts",
        gross="total_cost",
        start="opened_on",
        end="closed_on",
        status="status",
        note="field_note",
        owner="technician",
        priority="priority",
        approver="duty_manager",
        urgent="emergency",
        levels=("low", "normal", "emergency"),
        statuses=("opened", "scheduled", "in progress", "closed", "deferred", "cancelled", "escalated"),
    ),
    "hospitality": dict(
        departments=("reservations", "front desk", "events"),
        qty_lo=(1,),
        qty_span=(3, 10),
        planned_max=14,
        record="room booking",
        key="booking_id",
        prefix="RB",
        code="rate_code",
        qty="guests",
        site="property",
        sites="properties",
        party="guest_id",
        register="guest register",
        noun="guest",
        done="nights_used",
        planned="nights_booked",
        net="room_charge",
        tax="city_tax",
        gross="total_charge",
        start="check_in",
        end="check_out",
        status="status",
        note="request",
        owner="agent",
        priority="channel",
        approver="approved_by",
        urgent="corporate",
        levels=("direct", "agency", "corporate"),
        statuses=(
            "tentative",
            "confirmed",
            "checked in",
            "checked out",
            "no-show",
            "cancelled",
            "wait-listed",
        ),
    ),
}

PATTERNS = {
    "LL-DDDD": ("two capital letters, a hyphen and four digits", r"[A-Z]{2}-\d{4}"),
    "DDD/LL": ("three digits, a slash and two capital letters", r"\d{3}/[A-Z]{2}"),
    "LDDDDDD": ("one capital letter followed by six digits", r"[A-Z]\d{6}"),
    "DDDD-DDDD": ("two groups of four digits joined by a hyphen", r"\d{4}-\d{4}"),
}
# Notes are whole phrases (complete short notes, one sentence each) of the record type's domain;
# a note of any length from 9 to 38 characters is one phrase or two or three of them in a row.
NOTE_PHRASES: dict[str, tuple[str, ...]] = {
    "logistics": (
        "Fragile.", "Keep dry.", "Keep cool.", "Call ahead.", "No tipping.", "Heavy items.", "Keep frozen.",
        "Do not stack.", "Glass inside.", "Keep upright.", "Fragile goods.", "Liquids inside.",
        "Two-person lift.", "Handle with care.", "Tail lift needed.", "Use the side gate.",
        "Leave at reception.", "Signature required.", "Deliver before noon.", "Keep away from heat.",
        "Use the lift on site.", "Leave with the porter.", "Driver must wear boots.",
        "Customs papers attached.", "Forklift needed on site.", "Pallets must be wrapped.",
        "Deliver to the back door.", "Ring the bell on arrival.", "Use the rear loading bay.",
        "No deliveries on Saturday.", "Check the seals on arrival.", "Book a slot before delivery.",
        "Call the warehouse on arrival.",
    ),
    "healthcare": (
        "Stat test.", "Hard veins.", "Repeat test.", "Very anxious.", "Query anaemia.", "Urgent result.",
        "Copy to the GP.", "Fasting sample.", "On antibiotics.", "Elderly patient.", "Allergy to latex.",
        "Pregnant patient.", "Query iron levels.", "Check liver values.", "Label checked twice.",
        "Patient is diabetic.", "Patient on warfarin.", "Sample taken at 8am.", "Keep the sample cold.",
        "Known kidney disease.", "Post-operative check.", "Recheck in two weeks.", "Results to the clinic.",
        "Blood pressure is high.", "Follow-up of last test.", "No food since midnight.",
        "Taken before breakfast.", "Second sample requested.", "Compare with last result.",
        "Patient prefers mornings.", "Call the ward with results.", "Sample from the night shift.",
        "Repeat if the result is high.", "Send a copy to the consultant.",
    ),
    "retail": (
        "Enjoy it!", "Thank you!", "With love.", "Enjoy them.", "All my love.", "Happy Easter!",
        "Get well soon.", "Happy birthday!", "Happy new year!", "Congratulations!", "Merry Christmas!",
        "Thinking of you.", "Happy retirement!", "With best wishes.", "A small thank you.",
        "Enjoy the weekend!", "Happy anniversary!", "Have a lovely day.", "Sorry I missed it.",
        "Many happy returns!", "Enjoy your new home.", "Love from all of us.", "With warmest wishes.",
        "For your new kitchen.", "See you at the party.", "Well done on passing!", "Welcome to the family.",
        "Hope you like the gift.", "Enjoy, and see you soon.", "Good luck in the new job.",
        "Cheers to many more years.", "Congratulations to you both!", "Happy birthday from all of us.",
    ),
    "software": (
        "Key used.", "Key reset.", "Quote sent.", "Renewal due.", "Paid by card.", "Test account.",
        "Paid annually.", "Owner on leave.", "Trial extended.", "Partner licence.", "Reseller account.",
        "Upgrade requested.", "Confirmed by email.", "Renewal not wanted.", "Shared team access.",
        "Renewal in progress.", "Billing via reseller.", "Pending legal review.", "Key sent to the owner.",
        "Replaces an older key.", "Added for the new team.", "Awaiting a new invoice.",
        "Check usage next month.", "Discount agreed in May.", "Needs a purchase order.",
        "Renew before the audit.", "Seats moved from sales.", "Contact the owner first.",
        "Moved to annual billing.", "Used by the support team.", "Replaces the old contract.",
        "Waiting for a signed order.", "Second key for the test lab.", "Transferred from old account.",
        "Agreed with the account owner.",
    ),
    "finance": (
        "Car loan.", "Home loan.", "Paid early.", "Final payment.", "Loan repayment.", "Early settlement.",
        "Includes late fee.", "Second instalment.", "Partial repayment.", "Overdue instalment.",
        "As agreed by phone.", "Payment on account.", "Student loan repayment.", "Check the bank details.",
        "Release after approval.", "Paid by standing order.", "Repayment of overdraft.",
        "Confirmed by the client.", "Balance of the contract.", "Top-up loan, first instalment.",
        "Rate change applied this month.", "Monthly loan repayment due.", "Fee for the new credit line.",
        "Settles the loan in full.", "Instalment after payment break.", "Payment from the joint account.",
        "Direct debit returned, paid by transfer.", "Interest only this month.", "Reminder sent last week.",
        "Car finance.", "Mortgage fee.", "Arrangement fee.", "Interest adjustment.", "First repayment.",
        "Repayment of the bridging loan.", "Repayment by the guarantor.", "Equipment loan repayment.",
        "Repayment of the business loan.",
    ),
    "education": (
        "Fees due.", "Fees paid.", "Left early.", "New student.", "Has two jobs.", "Needs a tutor.",
        "Mature student.", "Needs a locker.", "Part-time study.", "Has a study plan.", "Late application.",
        "Fees paid in full.", "Has a hearing aid.", "Requires a laptop.", "Returning student.",
        "Employer pays fees.", "Joined in week two.", "Works night shifts.", "Awaiting transcript.",
        "Bursary applied for.", "Deferred from spring.", "First course with us.", "Needs a reading list.",
        "Study leave approved.", "Certificate to follow.", "Placement test passed.", "Wants an exam in June.",
        "Needs step-free access.", "Speaks three languages.", "Prefers evening classes.",
        "Needs extra reading time.", "Needs large-print handouts.", "Deferred to the autumn term.",
        "Wants to sit the final exam.", "Moved from the morning group.",
    ),
    "energy": (
        "No power.", "No access.", "Wet floor.", "Site clear.", "Dog on site.", "Old fuse box.",
        "Fuse replaced.", "Ladder needed.", "Meter replaced.", "Meter in cellar.", "New seal fitted.",
        "Dog kept indoors.", "Old meter removed.", "Revisit next week.", "Cabinet door stiff.",
        "Key with neighbour.", "Parking is limited.", "Meter moved outside.", "Access via rear gate.",
        "Call before visiting.", "Customer not at home.", "Customer was helpful.", "Reading taken at 9am.",
        "Report sent to office.", "Cable damaged by frost.", "Meter cupboard blocked.",
        "Photo of reading taken.", "Seal broken on arrival.", "Wiring checked and safe.",
        "Ask for the site manager.", "Site is locked on Sundays.", "Meter reading sent by post.",
        "Gas smell reported, checked.", "Reading agrees with the bill.", "Customer asked for a callback.",
    ),
    "hospitality": (
        "Sea view.", "No stairs.", "High floor.", "Quiet room.", "Crib needed.", "Extra towels.",
        "Extra pillows.", "Late check-in.", "Early check-in.", "Adjoining rooms.", "Cot in the room.",
        "Early breakfast.", "Airport transfer.", "Honeymoon couple.", "Vegetarian meals.", "Dog friendly room.",
        "Ground floor room.", "Twin beds, please.", "Wheelchair access.", "Away from the lift.",
        "No feather pillows.", "Room near the lift.", "Flowers in the room.", "Parking space needed.",
        "Sea view if possible.", "Gluten-free breakfast.", "Late departure, please.", "Newspaper each morning.",
        "Arriving after midnight.", "Birthday cake at dinner.", "Close to the lift, please.",
        "Cot and high chair needed.", "Breakfast in the room daily.", "Quiet room away from the bar.",
        "Room on the top floor, please.",
    ),
}
RULE_TEXT = {
    "required": (
        "Every record must have a value in {owner}.",
        "{owner} is mandatory and may not be left empty.",
    ),
    "pattern": (
        "{code} must consist of {desc} (for example {example}).",
        "Format of {code}: {desc}, nothing else (for example {example}).",
    ),
    "range": (
        "{qty} must be between {lo} and {hi}, both included.",
        "{qty} may not be below {lo} or above {hi}.",
    ),
    "unique": (
        "{key} must be unique within the batch.",
        "No two records of the batch may share the same {key}.",
    ),
    "reference": (
        "{site} must be one of the approved {sites} of the reference list.",
        "Only codes on the list of approved {sites} may appear in {site}.",
    ),
    "compare": (
        "{done} may not exceed {planned}.",
        "{done} must be less than or equal to {planned} of the same record.",
    ),
    "conditional": (
        'If {priority} is "{urgent}", {approver} must be filled.',
        'Records whose {priority} is "{urgent}" need a value in {approver}.',
    ),
    "sum": (
        "{gross} must equal {net} plus {tax}, to the cent.",
        "{net} + {tax} = {gross} must hold exactly for every record.",
    ),
    "date_order": ("{end} may not be earlier than {start}.", "{start} must be on or before {end}."),
    "enum": ("{status} must be one of: {allowed}.", "Allowed values of {status}: {allowed} (no others)."),
    "length": (
        "{note} may hold at most {n} characters, spaces included.",
        "{note} is limited to {n} characters (spaces count).",
    ),
    "foreign_key": (
        "{party} must be the id of an entry of the {register}.",
        "Every {party} must refer to an existing {noun} in the {register}.",
    ),
    "combination": (
        "No two records may have the same combination of {party} and {start}.",
        "The pair ({party}, {start}) must not repeat within the batch.",
    ),
}
INTROS = (
    "{org} ({business}) loads a batch of {record} records exported by its {department} team on {date}. "
    "Before loading, the batch is checked against the integrity rules below.",
    "Data check before import: a batch of {record} records of {org}, {a_business} organisation, taken "
    "from the {department} system on {date}.",
    "The {department} team of {org} ({business}) sent the batch of {record} records below on {date}; every "
    "record must meet the integrity rules of the record type.",
)
NOTES = (
    "An empty cell means that the field is not filled. At most one rule is violated by the batch.",
    "Cells left empty are fields without a value. The batch breaks at most one of the rules.",
)
TABLE_STYLES = ("pipe", "semicolon")


@dataclass(frozen=True)
class RecordRuleConfig(FamilyConfig):
    """Batch and rule-list sizes per level, and how many groups hold the untouched batch."""

    records: tuple[int, int, int] = (10, 16, 24)
    """Records in the batch at levels 1, 2, 3."""
    rules: tuple[tuple[int, int], tuple[int, int], tuple[int, int]] = ((6, 7), (7, 8), (8, 9))
    """Range of the number of listed rules per level."""
    distractors: tuple[tuple[int, int], tuple[int, int], tuple[int, int]] = ((1, 1), (1, 2), (2, 2))
    """Range of the number of shown field groups that no rule reads."""
    none_groups: tuple[int, int, int] = (24, 24, 24)
    """Groups per level whose members include the untouched batch."""
    group_size: int = 4
    """Members per group."""

    def validate(self) -> None:
        super().validate()
        if self.group_size < 2:
            raise ValueError("group_size must be at least 2")
        if self.items_per_level % self.group_size:
            raise ValueError(f"items_per_level must be a multiple of group_size ({self.group_size})")
        groups = self.items_per_level // self.group_size
        for level in (1, 2, 3):
            i = level - 1
            lo, hi = self.rules[i]
            if not 6 <= lo <= hi <= 9:
                raise ValueError(f"level {level}: rule counts {lo}-{hi} must lie within 6-9")
            if lo < self.group_size:
                raise ValueError(f"level {level}: {lo} rules cannot give {self.group_size} different answers")
            if not 0 <= self.none_groups[i] <= groups:
                raise ValueError(f"level {level}: none_groups must be between 0 and {groups}")
            if self.records[i] < 6:
                raise ValueError(f"level {level}: a batch needs at least 6 records, got {self.records[i]}")
            d_lo, d_hi = self.distractors[i]
            if not 0 <= d_lo <= d_hi or d_hi + hi > len(RULE_TYPES) - 1:
                raise ValueError(f"level {level}: distractor range {d_lo}-{d_hi} does not fit {hi} rules")


# --- values ---------------------------------------------------------------------------------------


def _pattern_value(rng: random.Random, kind: str) -> str:
    letters = "BCDFGHJKLMNPRSTVWXZ"  # no vowels: two letters never spell a word ("AN", "TO")

    def ls(n: int) -> str:
        return "".join(pick(rng, letters) for _ in range(n))

    def ds(n: int) -> str:
        return "".join(str(rng.randrange(10)) for _ in range(n))

    if kind == "LL-DDDD":
        return f"{ls(2)}-{ds(4)}"
    if kind == "DDD/LL":
        return f"{ds(3)}/{ls(2)}"
    if kind == "LDDDDDD":
        return f"{ls(1)}{ds(6)}"
    return f"{ds(4)}-{ds(4)}"


def _pattern_break(rng: random.Random, value: str, kind: str) -> str:
    """The value one step outside the format.

    A digit dropped or added, a lower-case letter, or a wrong separator.
    """
    ways = [
        "drop",
        "add",
        "separator" if kind != "LDDDDDD" else "lower",
        "lower" if kind != "DDDD-DDDD" else "drop",
    ]
    how = pick(rng, ways)
    digits = [k for k, c in enumerate(value) if c.isdigit()]
    if how == "drop":
        k = pick(rng, digits)
        return value[:k] + value[k + 1 :]
    if how == "add":
        k = pick(rng, digits)
        return value[:k] + str(rng.randrange(10)) + value[k:]
    if how == "separator":
        sep = "-" if "-" in value else "/"
        return value.replace(sep, pick(rng, [s for s in ("-", "/", ".", "") if s != sep]))
    k = next(k for k, c in enumerate(value) if c.isalpha())  # "kV-4821", never a word-like "Kv-4821"
    return value[:k] + value[k].lower() + value[k + 1 :]


def _topics(phrase: str) -> set[str]:
    """The first word and the longer words of a phrase: two phrases sharing one are not combined."""
    words = re.findall(r"[a-z-]+", phrase.lower())
    return {words[0]} | {w for w in words if len(w) >= 4}


VAT_RATES = (25, 12, 6)
"""Swedish VAT rates (the retail domain pays in SEK), in percent."""

ADDED_PHRASES: dict[str, frozenset[str]] = {
    "retail": frozenset({"With love.", "All my love.", "With best wishes.", "Love from all of us.",
                         "With warmest wishes.", "Enjoy it!", "Enjoy them.", "Hope you like the gift.",
                         "Have a lovely day.", "Enjoy, and see you soon.", "Thank you!"}),
    "finance": frozenset({"Includes late fee.", "As agreed by phone.", "Check the bank details.",
                          "Release after approval.", "Paid by standing order.", "Confirmed by the client.",
                          "Reminder sent last week.", "Paid early."}),
}
"""Phrases that follow another in a note (a signature, a remark); the others say what the note is about, and a
note is about one thing (1.3: no "Get well soon. Congratulations!" or "Legal fees. Car lease.")."""


def _compatible(parts: list[str] | tuple[str, ...], domain: str = "") -> bool:
    """No two phrases of a note on the same topic ("High floor. Ground floor room.", "Fees paid. Fees due."), and
    where a domain says what a note is about (gift messages, loan memos) one such phrase, written first."""
    added = ADDED_PHRASES.get(domain)
    if added is not None and any(part not in added for part in parts[1:]):
        return False
    seen: set[str] = set()
    for part in parts:
        topics = _topics(part)
        if topics & seen:
            return False
        seen |= topics
    return True


@cache
def _note_combinations(domain: str, n: int) -> tuple[tuple[str, ...], ...]:
    """Every note of exactly ``n`` characters made of one, two or three different phrases of ``domain``."""
    phrases = NOTE_PHRASES[domain]
    found: list[tuple[str, ...]] = [(p,) for p in phrases if len(p) == n]
    for p in phrases:
        for q in phrases:
            if q != p and len(p) + 1 + len(q) == n:
                found.append((p, q))
            rest = n - len(p) - len(q) - 2
            if q != p and rest > 0:
                found += [(p, q, r) for r in phrases if len(r) == rest and r not in (p, q)]
    return tuple(c for c in found if _compatible(c, domain))


def _text_of_length(rng: random.Random, domain: str, n: int) -> str:
    """A note of exactly ``n`` characters: whole phrases of the domain, fewest phrases preferred."""
    combos = _note_combinations(domain, n)
    if not combos:
        raise ValueError(f"no note of {n} characters for {domain}")
    fewest = min(len(c) for c in combos)
    short = [c for c in combos if len(c) <= max(fewest, 2)]
    return " ".join(pick(rng, short if rng.random() < 0.8 else list(combos)))


def _lengthen(rng: random.Random, domain: str, text: str) -> str:
    """The note one character longer: one of its phrases is swapped for a phrase one character longer."""
    parts = re.split(r"(?<=[.!]) ", text)
    spots = list(range(len(parts)))
    rng.shuffle(spots)
    for k in spots:
        longer = [
            p
            for p in NOTE_PHRASES[domain]
            if len(p) == len(parts[k]) + 1 and _compatible([*parts[:k], p, *parts[k + 1 :]], domain)
        ]
        if longer:
            return " ".join([*parts[:k], pick(rng, longer), *parts[k + 1 :]])
    return _text_of_length(rng, domain, len(text) + 1)


def _money(cents: int) -> str:
    return f"{cents // 100}.{cents % 100:02d}"


def _cents(text: str) -> int:
    whole, frac = text.split(".")
    return int(whole) * 100 + int(frac)


def _site_code(rng: random.Random) -> str:
    return invented_stem(rng, 2)[:3].upper() + str(rng.randrange(1, 10))


def _lookalike_digits(rng: random.Random, value: str, taken: set[str]) -> str:
    """Change one digit of ``value`` (a near miss that is another valid-looking id)."""
    digits = [k for k, c in enumerate(value) if c.isdigit()]
    for _ in range(100):
        k = pick(rng, digits[1:] if len(digits) > 1 else digits)
        new = value[:k] + str(rng.randrange(10)) + value[k + 1 :]
        if new != value and new not in taken:
            return new
    raise RuntimeError(f"no look-alike of {value!r}")


# --- case sampling --------------------------------------------------------------------------------


def _sample_context(
    rng: random.Random,
    level: int,
    types: list[str],
    config: RecordRuleConfig,
    positions: dict[str, int],
    k_rules: int,
) -> dict[str, Any]:
    """Domain, fields, rules (violated types at their planned positions) and reference lists."""
    i = level - 1
    domain_name = pick(rng, sorted(SCHEMAS))
    schema = SCHEMAS[domain_name]
    domain = DOMAIN_BY_NAME[domain_name]
    forge = NameForge(rng, domain_name)
    others = [t for t in RULE_TYPES if t not in types]
    rng.shuffle(others)
    listed = list(types) + others[: k_rules - len(types)]
    order: list[str | None] = [None] * k_rules
    for t, p in positions.items():
        order[p] = t
    rest = [t for t in listed if t not in positions]
    rng.shuffle(rest)
    for p in range(k_rules):
        if order[p] is None:
            order[p] = rest.pop()
    rule_types = [t for t in order if t is not None]
    used_roles = {r for t in rule_types for r in TYPE_ROLES[t]} | {"key"}
    spare = [t for t in RULE_TYPES if t not in rule_types and not set(TYPE_ROLES[t]) <= used_roles]
    rng.shuffle(spare)
    n_distract = rng.randint(*config.distractors[i])
    for t in spare[:n_distract]:
        used_roles |= set(TYPE_ROLES[t])
    roles = [r for r in ROLE_ORDER if r in used_roles]

    pattern_kind = pick(rng, sorted(PATTERNS))
    lo = pick(rng, schema["qty_lo"])
    hi = lo + rng.randrange(*schema["qty_span"])
    statuses = list(schema["statuses"])
    rng.shuffle(statuses)
    allowed = sorted(statuses[: rng.randint(3, 4)])
    approved = []
    while len(approved) < rng.randint(4, 6):
        code = _site_code(rng)
        if code not in approved:
            approved.append(code)
    withdrawn = []
    while len(withdrawn) < rng.randint(2, 3):
        base = pick(rng, approved)
        code = base[:3] + str((int(base[3]) + rng.randrange(1, 9)) % 9 + 1)
        if code not in approved and code not in withdrawn:
            withdrawn.append(code)
    register_ids: list[str] = []
    letter = schema["noun"][0].upper()
    while len(register_ids) < rng.randint(5, 8):
        rid = f"{letter}{rng.randrange(100, 1000)}"
        if rid not in register_ids:
            register_ids.append(rid)
    register_rows = [
        [
            rid,
            forge.organisation()
            if schema["noun"] in ("shipper", "account", "client", "customer")
            else forge.person(),
        ]
        for rid in register_ids
    ]
    params = {"lo": lo, "hi": hi, "n": rng.randrange(22, 38), "allowed": allowed, "pattern": pattern_kind}
    names = {r: schema[r] for r in ROLE_ORDER}
    rules = []
    for k, t in enumerate(rule_types):
        text = pick(rng, RULE_TEXT[t]).format(
            **names,
            sites=schema["sites"],
            register=schema["register"],
            noun=schema["noun"],
            urgent=schema["urgent"],
            lo=lo,
            hi=hi,
            n=params["n"],
            allowed=join_words(allowed, "or"),
            desc=PATTERNS[pattern_kind][0],
            example=_pattern_value(rng, pattern_kind),
        )
        rules.append({"id": f"R{k + 1}", "type": t, "text": text})
    year, month = 2026, rng.randrange(1, 13)
    return {
        "domain": domain_name,
        "org": forge.organisation(domain_name),
        "business": domain.business,
        "department": pick(rng, schema["departments"]),
        "record": schema["record"],
        # exported after the last date a record can carry (start by day 20, end at most 9 days later)
        "date": long_date(dt.date(year, month, 1) + dt.timedelta(days=rng.randrange(29, 34))),
        "month": [year, month],
        "intro": rng.randrange(len(INTROS)),
        "note_variant": rng.randrange(len(NOTES)),
        "table": pick(rng, TABLE_STYLES),
        "roles": roles,
        "fields": [schema[r] for r in roles],
        "schema": {
            "prefix": schema["prefix"],
            "urgent": schema["urgent"],
            "levels": list(schema["levels"]),
            "planned_max": schema["planned_max"],
            "statuses": list(schema["statuses"]),
            "sites": schema["sites"],
            "register": schema["register"],
        },
        "params": params,
        "rules": rules,
        "lists": {"approved": approved, "withdrawn": withdrawn, "register": register_rows},
        "_forge": forge,
    }


def _sample_records(rng: random.Random, ctx: dict[str, Any], n: int) -> list[dict[str, str]]:
    """``n`` records keeping every rule type (shown or not), keyed by role."""
    p = ctx["params"]
    forge: NameForge = ctx["_forge"]
    owners = [forge.given_name() for _ in range(max(3, n // 4))]
    approvers = [forge.given_name() for _ in range(3)]
    register_ids = [row[0] for row in ctx["lists"]["register"]]
    year, month = ctx["month"]
    keys: set[str] = set()
    combos: set[tuple[str, str]] = set()
    records = []
    while len(records) < n:
        key = f"{ctx['schema']['prefix']}-{rng.randrange(10000, 100000)}"
        party = pick(rng, register_ids)
        start = dt.date(year, month, 1) + dt.timedelta(days=rng.randrange(20))
        if key in keys or (party, start.isoformat()) in combos:
            continue
        keys.add(key)
        combos.add((party, start.isoformat()))
        planned = rng.randrange(2, ctx["schema"]["planned_max"] + 1)
        net = rng.randrange(1000, 500000)
        tax = rng.randrange(0, net // 4 + 1)
        if ctx["domain"] == "retail":  # VAT at one of the country's rates (1.2: any share, 0.7% to 23.8%)
            tax = net * VAT_RATES[tax % len(VAT_RATES)] // 100
        level = pick(rng, ctx["schema"]["levels"])
        urgent = level == ctx["schema"]["urgent"]
        records.append(
            {
                "key": key,
                "party": party,
                "site": pick(rng, ctx["lists"]["approved"]),
                "code": _pattern_value(rng, p["pattern"]),
                "status": pick(rng, p["allowed"]),
                "priority": level,
                "approver": pick(rng, approvers) if urgent or rng.random() < 0.3 else "",
                "owner": pick(rng, owners),
                "start": start.isoformat(),
                "end": (start + dt.timedelta(days=rng.randrange(0, 10))).isoformat(),
                "qty": str(rng.randint(p["lo"], p["hi"])),
                "planned": str(planned),
                "done": str(rng.randint(max(0, planned - 8), planned)),
                "net": _money(net),
                "tax": _money(tax),
                "gross": _money(net + tax),
                "note": _text_of_length(rng, ctx["domain"], rng.randint(p["n"] // 2, p["n"])),
            }
        )
    return records


def _near_miss(
    rng: random.Random, ctx: dict[str, Any], records: list[dict[str, str]], t: str, j: int
) -> dict[str, Any]:
    """Put record ``j`` at the edge of rule type ``t`` in the base; return what the break needs."""
    p = ctx["params"]
    rec = records[j]
    if t == "range":
        side = "hi" if p["lo"] == 0 or rng.random() < 0.6 else "lo"
        rec["qty"] = str(p[side])
        return {"side": side}
    if t == "compare":
        rec["done"] = rec["planned"]
    elif t == "date_order":
        rec["end"] = rec["start"]
    elif t == "length":
        rec["note"] = _text_of_length(rng, ctx["domain"], p["n"])
    elif t == "unique":
        i = pick(rng, [k for k in range(len(records)) if k != j])
        rec["key"] = _lookalike_digits(rng, records[i]["key"], {r["key"] for r in records})
        return {"twin": i}
    elif t == "combination":
        i = pick(rng, [k for k in range(len(records)) if k != j and records[k]["party"] != rec["party"]])
        rec["start"] = records[i]["start"]
        if rec["end"] < rec["start"]:
            rec["end"] = rec["start"]
        return {"twin": i}
    elif t == "conditional":
        how = pick(rng, ("empty_approver", "raise_priority"))
        if how == "empty_approver":
            rec["priority"] = ctx["schema"]["urgent"]
            rec["approver"] = rec["approver"] or rec["owner"]
        else:
            rec["priority"] = pick(rng, [v for v in ctx["schema"]["levels"] if v != ctx["schema"]["urgent"]])
            rec["approver"] = ""
        return {"how": how}
    return {}


def _break(
    rng: random.Random,
    ctx: dict[str, Any],
    records: list[dict[str, str]],
    t: str,
    j: int,
    setup: dict[str, Any],
) -> tuple[str, str]:
    """The (role, new value) that breaks rule type ``t`` at record ``j`` one step past the edge."""
    p = ctx["params"]
    rec = records[j]
    if t == "required":
        return "owner", ""
    if t == "pattern":
        return "code", _pattern_break(rng, rec["code"], p["pattern"])
    if t == "range":
        return "qty", str(p["hi"] + 1) if setup["side"] == "hi" else str(p["lo"] - 1)
    if t == "unique":
        return "key", records[setup["twin"]]["key"]
    if t == "reference":
        return "site", pick(rng, ctx["lists"]["withdrawn"])
    if t == "compare":
        return "done", str(int(rec["planned"]) + 1)
    if t == "conditional":
        if setup["how"] == "empty_approver":
            return "approver", ""
        return "priority", ctx["schema"]["urgent"]
    if t == "sum":
        delta = pick(rng, (1, 1, -1, 100, -100))
        return "gross", _money(_cents(rec["gross"]) + delta)
    if t == "date_order":
        return "end", (dt.date.fromisoformat(rec["start"]) - dt.timedelta(days=1)).isoformat()
    if t == "enum":
        return "status", pick(rng, [s for s in ctx["schema"]["statuses"] if s not in p["allowed"]])
    if t == "length":
        return "note", _lengthen(rng, ctx["domain"], rec["note"])
    if t == "foreign_key":
        ids = {row[0] for row in ctx["lists"]["register"]}
        return "party", _lookalike_digits(rng, rec["party"], ids)
    if t == "combination":
        return "party", records[setup["twin"]]["party"]
    raise ValueError(f"unknown rule type {t!r}")


# --- answer ---------------------------------------------------------------------------------------


def _violated(case: dict[str, Any], t: str) -> bool:
    """Whether the batch breaks the rule of type ``t`` (records are keyed by field name)."""
    f = dict(zip(case["roles"], case["fields"], strict=True))
    p = case["params"]
    recs = case["records"]
    if t == "required":
        return any(r[f["owner"]] == "" for r in recs)
    if t == "pattern":
        return any(not re.fullmatch(PATTERNS[p["pattern"]][1], r[f["code"]]) for r in recs)
    if t == "range":
        return any(not p["lo"] <= int(r[f["qty"]]) <= p["hi"] for r in recs)
    if t == "unique":
        keys = [r[f["key"]] for r in recs]
        return len(set(keys)) != len(keys)
    if t == "reference":
        return any(r[f["site"]] not in case["lists"]["approved"] for r in recs)
    if t == "compare":
        return any(int(r[f["done"]]) > int(r[f["planned"]]) for r in recs)
    if t == "conditional":
        return any(r[f["priority"]] == case["schema"]["urgent"] and r[f["approver"]] == "" for r in recs)
    if t == "sum":
        return any(_cents(r[f["net"]]) + _cents(r[f["tax"]]) != _cents(r[f["gross"]]) for r in recs)
    if t == "date_order":
        return any(r[f["end"]] < r[f["start"]] for r in recs)
    if t == "enum":
        return any(r[f["status"]] not in p["allowed"] for r in recs)
    if t == "length":
        return any(len(r[f["note"]]) > p["n"] for r in recs)
    if t == "foreign_key":
        ids = {row[0] for row in case["lists"]["register"]}
        return any(r[f["party"]] not in ids for r in recs)
    if t == "combination":
        pairs = [(r[f["party"]], r[f["start"]]) for r in recs]
        return len(set(pairs)) != len(pairs)
    raise ValueError(f"unknown rule type {t!r}")


def answer(case: dict[str, Any]) -> str:
    """The id of the one listed rule the batch breaks, or ``none``."""
    broken = [rule["id"] for rule in case["rules"] if _violated(case, rule["type"])]
    if len(broken) > 1:
        raise ValueError(f"{NAME}: the batch breaks more than one rule ({broken})")
    return broken[0] if broken else NONE_KEY


# --- rendering ------------------------------------------------------------------------------------


def render(case: dict[str, Any]) -> str:
    s = case["schema"]
    lines = [
        INTROS[case["intro"]].format(
            org=case["org"],
            business=case["business"],
            a_business=a_or_an(case["business"]),
            record=case["record"],
            department=case["department"],
            date=case["date"],
        ),
        "",
    ]
    lines.append(f'Record type "{case["record"]}", fields: {", ".join(case["fields"])}.')
    lines += ["", "Integrity rules:"]
    lines += [f"{rule['id']}. {rule['text']}" for rule in case["rules"]]
    lines += ["", "Reference lists:"]
    if "site" in case["roles"]:
        lines.append(f"- Approved {s['sites']}: {', '.join(case['lists']['approved'])}")
        lines.append(
            f"- Withdrawn {s['sites']} (no longer approved): {', '.join(case['lists']['withdrawn'])}"
        )
    if "party" in case["roles"]:
        entries = "; ".join(f"{rid} {name}" for rid, name in case["lists"]["register"])
        lines.append(f"- {s['register'][0].upper() + s['register'][1:]} (id and name): {entries}")
    if lines[-1] == "Reference lists:":
        lines[-1] = "Reference lists: none are needed for this record type."
    lines += ["", NOTES[case["note_variant"]], "", f"Batch ({len(case['records'])} records):"]
    header = case["fields"]
    rows = [[r[f] for f in header] for r in case["records"]]
    if case["table"] == "pipe":
        lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
    else:
        lines += ["; ".join(header)] + ["; ".join(row) for row in rows]
    return "\n".join(lines)


def _options(case: dict[str, Any]) -> tuple[Option, ...]:
    rules = tuple(Option(rule["id"], f"the batch violates rule {rule['id']}") for rule in case["rules"])
    return (*rules, Option(NONE_KEY, "the batch violates none of the rules"))


# --- contrast groups ------------------------------------------------------------------------------


def plan(config: RecordRuleConfig) -> list[GroupPlan]:
    """Groups of ``group_size``; violated types balanced to 40/41; gold positions balanced greedily.

    Positions are balanced separately for each number of listed rules, so that knowing how many
    rules there are (e.g. from the options alone) says nothing about where the broken rule sits.
    """
    size = config.group_size
    n_groups = config.items_per_level // size
    plans: list[GroupPlan] = []
    position_count: Counter[tuple[int, int]] = Counter()  # (rules listed, position) -> gold so far
    extra_offset = 0
    for level in (1, 2, 3):
        order_rng = random.Random(stable_seed(NAME, "plan", level))
        n_none = config.none_groups[level - 1]
        with_none = {round(k * n_groups / n_none) for k in range(n_none)} if n_none else set()
        slots = n_groups * size - n_none
        base, extra = divmod(slots, len(RULE_TYPES))
        remaining = {t: base for t in RULE_TYPES}
        for k in range(extra):
            remaining[RULE_TYPES[(extra_offset + k) % len(RULE_TYPES)]] += 1
        extra_offset += extra
        lo, hi = config.rules[level - 1]
        for g in range(n_groups):
            k_rules = lo + (g % (hi - lo + 1))
            n_break = size - (1 if g in with_none else 0)
            tiebreak = list(RULE_TYPES)
            order_rng.shuffle(tiebreak)
            types = sorted(
                (t for t in RULE_TYPES if remaining[t] > 0), key=lambda t: (-remaining[t], tiebreak.index(t))
            )[:n_break]
            if len(types) < n_break:
                raise ValueError("rule-type quotas cannot fill the groups")
            members: list[tuple[str | None, int]] = []
            free = list(range(k_rules))
            for t in types:
                remaining[t] -= 1
                p = min(free, key=lambda q: (position_count[k_rules, q], order_rng.random()))
                free.remove(p)
                position_count[k_rules, p] += 1
                members.append((t, p))
            if g in with_none:
                members.append((None, k_rules))
            name = "+".join(sorted(t or NONE_KEY for t, _ in members))
            plans.append(
                GroupPlan(
                    level=level, index=g, variation=name, params={"members": tuple(members), "rules": k_rules}
                )
            )
        if any(remaining.values()):
            raise ValueError("rule-type quotas were not used up")
    return plans


def build_group(plan: GroupPlan, rng: random.Random, config: RecordRuleConfig) -> Group:
    specs: tuple[tuple[str | None, int], ...] = plan.params["members"]
    k_rules: int = plan.params["rules"]
    types = [t for t, _ in specs if t is not None]
    positions = {t: p for t, p in specs if t is not None}
    n = config.records[plan.level - 1]
    for _ in range(100):
        ctx = _sample_context(rng, plan.level, types, config, positions, k_rules)
        by_role = _sample_records(rng, ctx, n)
        targets = dict(zip(types, rng.sample(range(n), len(types)), strict=True))  # one record per rule
        setups = {t: _near_miss(rng, ctx, by_role, t, targets[t]) for t in types}
        changes = {t: _break(rng, ctx, by_role, t, targets[t], setups[t]) for t in types}
        field_of = dict(zip(ctx["roles"], ctx["fields"], strict=True))
        base = {k: v for k, v in ctx.items() if not k.startswith("_")}
        base["records"] = [{field_of[r]: rec[r] for r in ctx["roles"]} for rec in by_role]
        try:
            if answer(base) != NONE_KEY:
                continue
            members = []
            decisive: set[str] = set()
            for t, p in specs:
                case = {**base, "records": [dict(r) for r in base["records"]]}
                if t is not None:
                    role, value = changes[t]
                    case["records"][targets[t]][field_of[role]] = value
                    decisive.add(f"records/{targets[t]}/{field_of[role]}")
                expected = NONE_KEY if t is None else base["rules"][p]["id"]
                if answer(case) != expected:
                    raise ValueError("member answer differs from the plan")
                members.append(
                    Member(
                        case=case, state=render(case), answer=expected, options=_options(case), variation=t
                    )
                )
        except ValueError:
            continue
        if len({str(m.case["records"]) for m in members}) != len(members):
            continue
        rng.shuffle(members)
        return Group(
            level=plan.level, domain=base["domain"], members=tuple(members), decisive=frozenset(decisive)
        )
    raise RuntimeError(f"{NAME}: could not build group {plan.level}/{plan.index} ({plan.variation})")


# --- partial-information heuristics ---------------------------------------------------------------

# Distinctive phrases of each rule type's wordings (enough to tell the thirteen types apart).
_TYPE_CUES = (
    ("combination", ("same combination of", "must not repeat within")),
    ("unique", ("must be unique within", "may share the same")),
    ("required", ("must have a value in", "is mandatory")),
    ("pattern", ("must consist of", "Format of")),
    ("range", ("both included", "may not be below")),
    ("enum", ("must be one of:", "Allowed values of")),
    ("conditional", ("must be filled", "need a value in")),
    ("compare", ("may not exceed", "less than or equal to")),
    ("sum", ("must equal", " + ")),
    ("date_order", ("may not be earlier than", "must be on or before")),
    ("length", ("characters",)),
    ("foreign_key", ("must be the id of", "must refer to an existing")),
    ("reference", ("one of the approved", "list of approved")),
)


def rule_type_of(text: str) -> str:
    """The rule type a rule's wording belongs to."""
    for t, cues in _TYPE_CUES:
        if any(c in text for c in cues):
            return t
    raise ValueError(f"unrecognised rule wording: {text!r}")


@cache
def _type_frequency() -> dict[str, int]:
    counts: Counter[str] = Counter()
    for p in plan(RecordRuleConfig()):
        counts.update(t for t, _ in p.params["members"] if t is not None)
    return dict(counts)


def heuristic_most_frequent_rule_type(item: Item) -> dict[str, float]:
    """Blame the listed rule whose type is violated most often across the family (ties: first listed)."""
    state = item.state if isinstance(item.state, str) else ""
    freq = _type_frequency()
    best, best_count = NONE_KEY, -1
    for line in state.splitlines():
        m = re.match(r"^(R\d+)\. (.*)$", line)
        if m and m.group(1) in item.option_keys:
            count = freq.get(rule_type_of(m.group(2)), 0)
            if count > best_count:
                best, best_count = m.group(1), count
    return {k: 1.0 if k == best else 0.0 for k in item.option_keys}


register(
    FamilySpec(
        name=NAME,
        layer="F",
        version=VERSION,
        question=QUESTION,
        config_type=RecordRuleConfig,
        plan=plan,
        build_group=build_group,
        expected_answers=None,
        heuristics={"most_frequent_rule_type": heuristic_most_frequent_rule_type},
    )
)
