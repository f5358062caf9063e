"""Schemathesis hooks for openapi.yaml (loaded by schemathesis.toml beside this file).

One hook, and it keeps every check on. The contract gives `timestamp__gte` and
`timestamp__lt` the format `date-time` and `conversation_id` the format `uuid`, and says
in their descriptions that servers following the reference also accept more: a date-time
without a zone, with a space instead of `T` or without seconds, a bare date, unix seconds;
a uuid as 32 hex digits, in upper case, in braces or after `urn:uuid:`. Schemathesis reads
the format alone, so it sends such a value as invalid data and expects a 422. When that
value is the only invalid part of the request, the contract asks for the answer a valid
request gets (200, or 404 for an unknown conversation), and that one failure of `negative_data_rejection` is dropped (Schemathesis counts and prints
dropped failures). Any other invalid value, or one of these forms combined with another
invalid part, still fails the run.
"""

from __future__ import annotations

import re
from datetime import date
from urllib.parse import parse_qs, urlsplit

import schemathesis
from schemathesis.core.failures import AcceptedNegativeData
from schemathesis.core.parameters import ParameterLocation
from schemathesis.generation.meta import CoveragePhaseData, FuzzingPhaseData, StatefulPhaseData

UNIX_SECONDS = re.compile(r"-?\d+(\.\d+)?")
# A date, then optionally a time (`T`, `t`, `_` or a space before it), seconds, a fraction and a zone.
DESCRIBED_DATE_TIME = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})(?:[Tt_ ]([01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:?\d{2})?)?"
)
HEX = "[0-9a-fA-F]"
DESCRIBED_UUID = re.compile(
    rf"(?:urn:uuid:)?(?:{HEX}{{32}}|{HEX}{{8}}-{HEX}{{4}}-{HEX}{{4}}-{HEX}{{4}}-{HEX}{{12}})"
    rf"|\{{(?:{HEX}{{32}}|{HEX}{{8}}-{HEX}{{4}}-{HEX}{{4}}-{HEX}{{4}}-{HEX}{{12}})\}}"
)


def accepted_date_time(value: str) -> bool:
    if UNIX_SECONDS.fullmatch(value):
        return True
    match = DESCRIBED_DATE_TIME.fullmatch(value)
    if not match:
        return False
    try:
        date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        return False
    return True


def accepted_uuid(value: str) -> bool:
    return DESCRIBED_UUID.fullmatch(value) is not None


ACCEPTED_BEYOND_FORMAT = {"date-time": accepted_date_time, "uuid": accepted_uuid}


def negated_parameters(case: schemathesis.Case) -> list[tuple[str, ParameterLocation]] | None:
    """The parameters the negative case made invalid, or None when Schemathesis cannot name every one."""
    data = case.meta.phase.data if case.meta else None
    if not isinstance(data, (CoveragePhaseData, FuzzingPhaseData, StatefulPhaseData)):
        return None
    named: list[tuple[str, ParameterLocation]] = []
    if data.mutations:
        for mutation in data.mutations:
            if mutation.parameter is None:
                return None
            named.append((mutation.parameter, mutation.parameter_location))
    elif data.parameter is not None and data.parameter_location is not None:
        named.append((data.parameter, data.parameter_location))
    return named or None


def sent_value(case: schemathesis.Case, response: schemathesis.Response, name: str, location: ParameterLocation) -> str | None:
    if location == ParameterLocation.QUERY:
        values = parse_qs(urlsplit(response.request.url).query, keep_blank_values=True).get(name)
        return values[0] if values and len(values) == 1 else None
    if location == ParameterLocation.PATH:
        value = (case.path_parameters or {}).get(name)
        return value if isinstance(value, str) else None
    return None


def accepted_as_described(case: schemathesis.Case, response: schemathesis.Response, name: str, location: ParameterLocation) -> bool:
    parameters = case.operation.get_parameter_set(location)
    schema = parameters.schema.get("properties", {}).get(name, {}) if parameters else {}
    accepts = ACCEPTED_BEYOND_FORMAT.get(schema.get("format"))
    value = sent_value(case, response, name, location)
    return accepts is not None and value is not None and accepts(value)


@schemathesis.hook
def filter_failure(context, failure, case, response) -> bool:
    if not isinstance(failure, AcceptedNegativeData):
        return True
    negated = negated_parameters(case)
    if negated is None:
        return True
    return not all(accepted_as_described(case, response, name, location) for name, location in negated)
