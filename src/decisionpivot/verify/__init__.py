"""verify: run every independent solver over an items folder and compare with the gold answers."""

from decisionpivot.verify.check import FamilyAgreement, chance_pair_accuracy, verify_folder

__all__ = ["FamilyAgreement", "chance_pair_accuracy", "verify_folder"]
