"""The XML tool era: calls written as tags in the assistant's text, results as user text.

Before native tool use, Cline asked the model to write a call as markup in its reply
(``<execute_command><command>npm test</command></execute_command>``) and answered it in the next
user message with a text block ``[execute_command for 'npm test'] Result:`` followed by the
output. A tag counts as a call only when the next user message answers it under such a header:
text that merely shows the markup (or a call the user never let run) stays text, word for word.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .tools import XML_TOOLS

_TAG = re.compile(r"<(" + "|".join(sorted(XML_TOOLS)) + r")>(.*?)</\1>", re.DOTALL)
_PARAM = re.compile(r"<([a-z_]+)>(.*?)</\1>", re.DOTALL)
_HEADER = re.compile(r"\[([a-z_]+)(?: for '.*?')?\] Result:", re.DOTALL)
#: The ways Cline's results say the call failed or was refused.
_FAILED = (
    "The tool execution failed with the following error:",
    "The user denied this operation.",
    "[ERROR]",
)
#: Parameters whose text is kept as written, only the newline after the tag dropped.
_VERBATIM = frozenset(("content", "diff"))


@dataclass(frozen=True, slots=True)
class Call:
    name: str
    params: dict[str, str]
    start: int
    end: int


def calls_in(text: str) -> list[Call]:
    found = []
    for match in _TAG.finditer(text):
        params: dict[str, str] = {}
        for param in _PARAM.finditer(match.group(2)):
            value = param.group(2)
            if param.group(1) in _VERBATIM:
                value = value.removeprefix("\n").removesuffix("\n")
            else:
                value = value.strip()
            params.setdefault(param.group(1), value)
        found.append(Call(match.group(1), params, match.start(), match.end()))
    return found


def header(text: str) -> tuple[str, str] | None:
    """``(tool name, what follows the header)`` when a text block opens with a result header."""
    match = _HEADER.match(text)
    if match is None:
        return None
    return match.group(1), text[match.end() :].strip()


def failed(result: str) -> bool:
    return result.startswith(_FAILED)


def is_xml_era(messages: list[Any]) -> bool:
    """No native ``tool_use``/``tool_result`` block anywhere: calls, if any, are markup."""
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") in ("tool_use", "tool_result"):
                    return False
    return True
