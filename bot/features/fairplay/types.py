"""What the fairplay use cases return and the view kinds: shared by the service, text and cog."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

REPORT_VIEW = "fairplay_report"
ENGINE_DQ_VIEW = "fairplay_engine_dq"


@dataclass(frozen=True)
class ReportInfo:
    """A report as the TD sees it (the only place the reporter appears)."""

    id: int
    reporter_discord_id: int
    accused_player_id: int
    accused: str
    links: tuple[str, ...]
    description: str
    state: str
    td_note: str | None
    created_at: datetime


@dataclass(frozen=True)
class ReportReceipt:
    """What the reporter is told: the report's number and whom it is about."""

    id: int
    accused: str


@dataclass(frozen=True)
class ReportChange:
    report: ReportInfo
    previous: str
    disqualified: bool


@dataclass(frozen=True)
class AccountMark:
    player_id: int
    name: str
    tos_violation: bool
    disabled: bool


@dataclass(frozen=True)
class AccountCheck:
    checked: int  # accounts asked for
    marked: list[AccountMark]  # new marks, each alerted to the TD once


@dataclass(frozen=True)
class PublicFlag:
    author_id: int
    channel_id: int
    jump_url: str
    names: tuple[str, ...]
    keywords: tuple[str, ...]
    excerpt: str
