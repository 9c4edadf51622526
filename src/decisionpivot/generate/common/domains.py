"""Eight invented-world domains that families draw their cases from.

A domain gives a case its setting: what the organisations do, what they sell, which currency they
use and a few nouns for departments and documents. Families may use all eight or a subset (the
paper records up to eight domains per family); the item's ``domain`` field names the one used.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Domain:
    """The setting of a case."""

    name: str
    """Short key written to the item's ``domain`` field."""
    business: str
    """What an organisation in this domain does ('freight forwarding')."""
    goods: tuple[str, ...]
    """Things sold or handled ('pallet jack', ...)."""
    departments: tuple[str, ...]
    """Units inside an organisation."""
    documents: tuple[str, ...]
    """Kinds of records the domain keeps."""
    currency: str
    """Invented-world currency code used in prices."""


DOMAINS: tuple[Domain, ...] = (
    Domain("logistics", "freight forwarding", ("pallet jack", "cargo strap", "shipping crate", "handheld scanner"),
           ("dispatch", "warehouse", "customs", "fleet"), ("waybill", "manifest", "delivery note"), "EUR"),
    Domain("healthcare", "clinic administration", ("infusion stand", "exam lamp", "wheelchair", "thermometer"),
           ("admissions", "pharmacy", "radiology", "billing"), ("referral", "discharge note", "lab order"), "CHF"),
    Domain("retail", "home-goods retail", ("kettle", "desk lamp", "storage box", "wool blanket"),
           ("purchasing", "stores", "returns", "marketing"), ("receipt", "price list", "stock report"), "SEK"),
    Domain("software", "software services", ("licence seat", "build agent", "support plan", "development board"),
           ("platform", "security", "support", "sales"), ("ticket", "release note", "incident report"), "USD"),
    Domain("finance", "credit and payments", ("card reader", "safe deposit box", "cash counter", "PIN pad"),
           ("lending", "compliance", "treasury", "audit"), ("statement", "loan file", "audit memo"), "GBP"),
    Domain("education", "adult education", ("projector", "lab kit", "textbook set", "tablet"),
           ("admissions", "faculty", "exams", "facilities"), ("transcript", "syllabus", "enrolment form"), "EUR"),
    Domain("energy", "grid and utility services", ("smart meter", "inverter", "cable drum", "transformer"),
           ("grid operations", "metering", "field service", "trading"), ("meter reading", "work order", "tariff sheet"),
           "NOK"),
    Domain("hospitality", "hotels and events", ("banquet table", "espresso machine", "room safe", "linen set"),
           ("front desk", "housekeeping", "events", "kitchen"), ("reservation", "invoice", "event order"), "DKK"),
)

DOMAIN_BY_NAME = {d.name: d for d in DOMAINS}
