"""nbgrader's ``CheckCellMetadata``, with its JSON schema checked once instead of once per cell.

nbgrader validates each cell's grading metadata with ``jsonschema.validate``, which first checks
the *schema itself* against JSON Schema's meta-schema, on every call: every cell of a lesson
notebook, twice per submission, so a class's run spent a visible share of the grader's CPU
proving the same schema valid over and over.  Here the schema is checked once per
process, and each cell is validated by one prepared validator: the same rules, the same errors
(``best_match`` of the errors, as ``jsonschema.validate`` raises), the same messages.

Only the schema step changes.  Every other rule of nbgrader's validator (schema versions, grade
ids, points, which cells may be graded) is nbgrader's own code: ``_PreparedSchema`` sits between
nbgrader's ``MetadataValidatorV3`` and its base class, so ``MetadataValidatorV3.validate_cell``
runs unchanged and its ``super()`` call lands here instead of in the base class.
"""

from __future__ import annotations

import traceback

import jsonschema
from jsonschema.exceptions import best_match
from nbgrader.nbgraderformat import ValidationError
from nbgrader.nbgraderformat.common import BaseMetadataValidator, SchemaTooNewError, SchemaTooOldError
from nbgrader.nbgraderformat.v3 import MetadataValidatorV3
from nbgrader.preprocessors import CheckCellMetadata as NbgraderCheckCellMetadata

_PREPARED: dict[int, jsonschema.protocols.Validator] = {}  # schema version -> its validator


def _prepared(version: int, schema: dict):
    """A validator for nbgrader's schema of this version (one file per version, read by
    nbgrader), the schema checked against its meta-schema the first time only."""
    if version not in _PREPARED:
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        _PREPARED[version] = cls(schema)
    return _PREPARED[version]


class _PreparedSchema(BaseMetadataValidator):
    def validate_cell(self, cell) -> None:
        # BaseMetadataValidator.validate_cell, with the prepared validator.
        if "nbgrader" not in cell.metadata:
            return
        meta = cell.metadata["nbgrader"]
        schema = meta.get("schema_version", 0)
        if schema < self.schema_version:
            raise SchemaTooOldError(
                f"Outdated schema version: {schema} (expected {self.schema_version})", schema, self.schema_version
            )
        if schema > self.schema_version:
            raise SchemaTooNewError(
                f"Schema version is too new: {schema} (expected {self.schema_version})", schema, self.schema_version
            )
        error = best_match(_prepared(self.schema_version, self.schema).iter_errors(meta))
        if error is not None:
            raise error


class MetadataValidator(MetadataValidatorV3, _PreparedSchema):
    """nbgrader's current metadata validator (version 3), its schema prepared once."""


class CheckCellMetadata(NbgraderCheckCellMetadata):
    """nbgrader's CheckCellMetadata (grade ids unique, metadata valid), with ``MetadataValidator``."""

    def preprocess(self, nb, resources):
        try:
            MetadataValidator().validate_nb(nb)
        except ValidationError:
            self.log.error(traceback.format_exc())
            msg = "Notebook failed to validate; the nbgrader metadata may be corrupted."
            self.log.error(msg)
            raise ValidationError(msg) from None
        return nb, resources
