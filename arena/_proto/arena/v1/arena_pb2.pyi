# ruff: noqa
# mypy: ignore-errors
import datetime

from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class MatchStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MATCH_STATUS_UNSPECIFIED: _ClassVar[MatchStatus]
    MATCH_STATUS_SCHEDULED: _ClassVar[MatchStatus]
    MATCH_STATUS_RUNNING: _ClassVar[MatchStatus]
    MATCH_STATUS_FINISHED: _ClassVar[MatchStatus]
    MATCH_STATUS_CANCELLED: _ClassVar[MatchStatus]

class EndReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    END_REASON_UNSPECIFIED: _ClassVar[EndReason]
    END_REASON_COMPLETE: _ClassVar[EndReason]
    END_REASON_DEAL_LIMIT: _ClassVar[EndReason]
    END_REASON_FORFEIT: _ClassVar[EndReason]
    END_REASON_CANCELLED: _ClassVar[EndReason]
    END_REASON_SHUTDOWN: _ClassVar[EndReason]
    END_REASON_ERROR: _ClassVar[EndReason]

class ActionStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ACTION_STATUS_UNSPECIFIED: _ClassVar[ActionStatus]
    ACTION_STATUS_ACCEPTED: _ClassVar[ActionStatus]
    ACTION_STATUS_MALFORMED: _ClassVar[ActionStatus]
    ACTION_STATUS_ILLEGAL: _ClassVar[ActionStatus]
    ACTION_STATUS_TIMED_OUT: _ClassVar[ActionStatus]
    ACTION_STATUS_STALE: _ClassVar[ActionStatus]
    ACTION_STATUS_TOO_MANY_ATTEMPTS: _ClassVar[ActionStatus]
MATCH_STATUS_UNSPECIFIED: MatchStatus
MATCH_STATUS_SCHEDULED: MatchStatus
MATCH_STATUS_RUNNING: MatchStatus
MATCH_STATUS_FINISHED: MatchStatus
MATCH_STATUS_CANCELLED: MatchStatus
END_REASON_UNSPECIFIED: EndReason
END_REASON_COMPLETE: EndReason
END_REASON_DEAL_LIMIT: EndReason
END_REASON_FORFEIT: EndReason
END_REASON_CANCELLED: EndReason
END_REASON_SHUTDOWN: EndReason
END_REASON_ERROR: EndReason
ACTION_STATUS_UNSPECIFIED: ActionStatus
ACTION_STATUS_ACCEPTED: ActionStatus
ACTION_STATUS_MALFORMED: ActionStatus
ACTION_STATUS_ILLEGAL: ActionStatus
ACTION_STATUS_TIMED_OUT: ActionStatus
ACTION_STATUS_STALE: ActionStatus
ACTION_STATUS_TOO_MANY_ATTEMPTS: ActionStatus

class Action(_message.Message):
    __slots__ = ("verb", "cards", "tag", "text")
    VERB_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    TAG_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    verb: str
    cards: _containers.RepeatedScalarFieldContainer[str]
    tag: str
    text: str
    def __init__(self, verb: _Optional[str] = ..., cards: _Optional[_Iterable[str]] = ..., tag: _Optional[str] = ..., text: _Optional[str] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("seq", "deal", "kind", "seat", "cards", "target", "value", "tag", "description")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    DEAL_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    TAG_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    seq: int
    deal: int
    kind: str
    seat: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    target: int
    value: int
    tag: str
    description: str
    def __init__(self, seq: _Optional[int] = ..., deal: _Optional[int] = ..., kind: _Optional[str] = ..., seat: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ..., target: _Optional[int] = ..., value: _Optional[int] = ..., tag: _Optional[str] = ..., description: _Optional[str] = ...) -> None: ...

class LegalActions(_message.Message):
    __slots__ = ("actions", "complete", "description", "texts")
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    COMPLETE_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    TEXTS_FIELD_NUMBER: _ClassVar[int]
    actions: _containers.RepeatedCompositeFieldContainer[Action]
    complete: bool
    description: str
    texts: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, actions: _Optional[_Iterable[_Union[Action, _Mapping]]] = ..., complete: _Optional[bool] = ..., description: _Optional[str] = ..., texts: _Optional[_Iterable[str]] = ...) -> None: ...

class Observation(_message.Message):
    __slots__ = ("game", "seat", "phase", "to_act", "hand", "events", "public_facts", "private_facts", "legal", "seq", "public_json", "private_json")
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    PUBLIC_FACTS_FIELD_NUMBER: _ClassVar[int]
    PRIVATE_FACTS_FIELD_NUMBER: _ClassVar[int]
    LEGAL_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    PUBLIC_JSON_FIELD_NUMBER: _ClassVar[int]
    PRIVATE_JSON_FIELD_NUMBER: _ClassVar[int]
    game: str
    seat: int
    phase: str
    to_act: int
    hand: _containers.RepeatedScalarFieldContainer[str]
    events: _containers.RepeatedCompositeFieldContainer[Event]
    public_facts: _struct_pb2.Struct
    private_facts: _struct_pb2.Struct
    legal: LegalActions
    seq: int
    public_json: str
    private_json: str
    def __init__(self, game: _Optional[str] = ..., seat: _Optional[int] = ..., phase: _Optional[str] = ..., to_act: _Optional[int] = ..., hand: _Optional[_Iterable[str]] = ..., events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ..., public_facts: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., private_facts: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., legal: _Optional[_Union[LegalActions, _Mapping]] = ..., seq: _Optional[int] = ..., public_json: _Optional[str] = ..., private_json: _Optional[str] = ...) -> None: ...

class ClockSettings(_message.Message):
    __slots__ = ("decision_ms", "time_bank_ms", "grace_ms", "auto_plays_to_flee")
    DECISION_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    GRACE_MS_FIELD_NUMBER: _ClassVar[int]
    AUTO_PLAYS_TO_FLEE_FIELD_NUMBER: _ClassVar[int]
    decision_ms: int
    time_bank_ms: int
    grace_ms: int
    auto_plays_to_flee: int
    def __init__(self, decision_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ..., grace_ms: _Optional[int] = ..., auto_plays_to_flee: _Optional[int] = ...) -> None: ...

class MatchInfo(_message.Message):
    __slots__ = ("match_id", "variant", "options", "players", "rated", "tournament_id", "max_deals", "clock")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    RATED_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    MAX_DEALS_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    variant: str
    options: _struct_pb2.Struct
    players: _containers.RepeatedScalarFieldContainer[str]
    rated: bool
    tournament_id: str
    max_deals: int
    clock: ClockSettings
    def __init__(self, match_id: _Optional[str] = ..., variant: _Optional[str] = ..., options: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., players: _Optional[_Iterable[str]] = ..., rated: _Optional[bool] = ..., tournament_id: _Optional[str] = ..., max_deals: _Optional[int] = ..., clock: _Optional[_Union[ClockSettings, _Mapping]] = ...) -> None: ...

class MatchSummary(_message.Message):
    __slots__ = ("info", "status", "deals", "started_at", "finished_at", "end_reason", "winner_team", "totals")
    INFO_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    DEALS_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    FINISHED_AT_FIELD_NUMBER: _ClassVar[int]
    END_REASON_FIELD_NUMBER: _ClassVar[int]
    WINNER_TEAM_FIELD_NUMBER: _ClassVar[int]
    TOTALS_FIELD_NUMBER: _ClassVar[int]
    info: MatchInfo
    status: MatchStatus
    deals: int
    started_at: _timestamp_pb2.Timestamp
    finished_at: _timestamp_pb2.Timestamp
    end_reason: EndReason
    winner_team: int
    totals: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, info: _Optional[_Union[MatchInfo, _Mapping]] = ..., status: _Optional[_Union[MatchStatus, str]] = ..., deals: _Optional[int] = ..., started_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., finished_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_reason: _Optional[_Union[EndReason, str]] = ..., winner_team: _Optional[int] = ..., totals: _Optional[_Iterable[int]] = ...) -> None: ...

class RatingChange(_message.Message):
    __slots__ = ("bot", "variant", "system", "before", "after", "sigma", "match_id", "at")
    BOT_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    SYSTEM_FIELD_NUMBER: _ClassVar[int]
    BEFORE_FIELD_NUMBER: _ClassVar[int]
    AFTER_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    AT_FIELD_NUMBER: _ClassVar[int]
    bot: str
    variant: str
    system: str
    before: float
    after: float
    sigma: float
    match_id: str
    at: _timestamp_pb2.Timestamp
    def __init__(self, bot: _Optional[str] = ..., variant: _Optional[str] = ..., system: _Optional[str] = ..., before: _Optional[float] = ..., after: _Optional[float] = ..., sigma: _Optional[float] = ..., match_id: _Optional[str] = ..., at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ClientMessage(_message.Message):
    __slots__ = ("hello", "join", "action", "ping", "leave")
    HELLO_FIELD_NUMBER: _ClassVar[int]
    JOIN_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    PING_FIELD_NUMBER: _ClassVar[int]
    LEAVE_FIELD_NUMBER: _ClassVar[int]
    hello: Hello
    join: Join
    action: ActionReply
    ping: Ping
    leave: Leave
    def __init__(self, hello: _Optional[_Union[Hello, _Mapping]] = ..., join: _Optional[_Union[Join, _Mapping]] = ..., action: _Optional[_Union[ActionReply, _Mapping]] = ..., ping: _Optional[_Union[Ping, _Mapping]] = ..., leave: _Optional[_Union[Leave, _Mapping]] = ...) -> None: ...

class ServerMessage(_message.Message):
    __slots__ = ("welcome", "joined", "seat_assigned", "deal_started", "events", "decision", "action_result", "deal_result", "match_result", "resume", "error", "pong", "draining")
    WELCOME_FIELD_NUMBER: _ClassVar[int]
    JOINED_FIELD_NUMBER: _ClassVar[int]
    SEAT_ASSIGNED_FIELD_NUMBER: _ClassVar[int]
    DEAL_STARTED_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    ACTION_RESULT_FIELD_NUMBER: _ClassVar[int]
    DEAL_RESULT_FIELD_NUMBER: _ClassVar[int]
    MATCH_RESULT_FIELD_NUMBER: _ClassVar[int]
    RESUME_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    PONG_FIELD_NUMBER: _ClassVar[int]
    DRAINING_FIELD_NUMBER: _ClassVar[int]
    welcome: Welcome
    joined: Joined
    seat_assigned: SeatAssigned
    deal_started: DealStarted
    events: EventBatch
    decision: DecisionRequest
    action_result: ActionResult
    deal_result: DealResult
    match_result: MatchResult
    resume: Resume
    error: Error
    pong: Pong
    draining: Draining
    def __init__(self, welcome: _Optional[_Union[Welcome, _Mapping]] = ..., joined: _Optional[_Union[Joined, _Mapping]] = ..., seat_assigned: _Optional[_Union[SeatAssigned, _Mapping]] = ..., deal_started: _Optional[_Union[DealStarted, _Mapping]] = ..., events: _Optional[_Union[EventBatch, _Mapping]] = ..., decision: _Optional[_Union[DecisionRequest, _Mapping]] = ..., action_result: _Optional[_Union[ActionResult, _Mapping]] = ..., deal_result: _Optional[_Union[DealResult, _Mapping]] = ..., match_result: _Optional[_Union[MatchResult, _Mapping]] = ..., resume: _Optional[_Union[Resume, _Mapping]] = ..., error: _Optional[_Union[Error, _Mapping]] = ..., pong: _Optional[_Union[Pong, _Mapping]] = ..., draining: _Optional[_Union[Draining, _Mapping]] = ...) -> None: ...

class Hello(_message.Message):
    __slots__ = ("protocol", "client", "resume_match_id", "events_in_requests")
    PROTOCOL_FIELD_NUMBER: _ClassVar[int]
    CLIENT_FIELD_NUMBER: _ClassVar[int]
    RESUME_MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    EVENTS_IN_REQUESTS_FIELD_NUMBER: _ClassVar[int]
    protocol: int
    client: str
    resume_match_id: str
    events_in_requests: bool
    def __init__(self, protocol: _Optional[int] = ..., client: _Optional[str] = ..., resume_match_id: _Optional[str] = ..., events_in_requests: _Optional[bool] = ...) -> None: ...

class Welcome(_message.Message):
    __slots__ = ("bot_id", "bot_name", "connection_id", "protocol", "server_version", "variants", "limits", "pending_matches")
    BOT_ID_FIELD_NUMBER: _ClassVar[int]
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    CONNECTION_ID_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_FIELD_NUMBER: _ClassVar[int]
    SERVER_VERSION_FIELD_NUMBER: _ClassVar[int]
    VARIANTS_FIELD_NUMBER: _ClassVar[int]
    LIMITS_FIELD_NUMBER: _ClassVar[int]
    PENDING_MATCHES_FIELD_NUMBER: _ClassVar[int]
    bot_id: str
    bot_name: str
    connection_id: str
    protocol: int
    server_version: str
    variants: _containers.RepeatedScalarFieldContainer[str]
    limits: Limits
    pending_matches: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, bot_id: _Optional[str] = ..., bot_name: _Optional[str] = ..., connection_id: _Optional[str] = ..., protocol: _Optional[int] = ..., server_version: _Optional[str] = ..., variants: _Optional[_Iterable[str]] = ..., limits: _Optional[_Union[Limits, _Mapping]] = ..., pending_matches: _Optional[_Iterable[str]] = ...) -> None: ...

class Limits(_message.Message):
    __slots__ = ("max_receive_bytes", "max_send_bytes", "max_connections_per_bot", "max_attempts_per_request", "max_messages_per_second")
    MAX_RECEIVE_BYTES_FIELD_NUMBER: _ClassVar[int]
    MAX_SEND_BYTES_FIELD_NUMBER: _ClassVar[int]
    MAX_CONNECTIONS_PER_BOT_FIELD_NUMBER: _ClassVar[int]
    MAX_ATTEMPTS_PER_REQUEST_FIELD_NUMBER: _ClassVar[int]
    MAX_MESSAGES_PER_SECOND_FIELD_NUMBER: _ClassVar[int]
    max_receive_bytes: int
    max_send_bytes: int
    max_connections_per_bot: int
    max_attempts_per_request: int
    max_messages_per_second: int
    def __init__(self, max_receive_bytes: _Optional[int] = ..., max_send_bytes: _Optional[int] = ..., max_connections_per_bot: _Optional[int] = ..., max_attempts_per_request: _Optional[int] = ..., max_messages_per_second: _Optional[int] = ...) -> None: ...

class Join(_message.Message):
    __slots__ = ("variants", "rated", "matches", "fill_after_ms", "fill_bot")
    VARIANTS_FIELD_NUMBER: _ClassVar[int]
    RATED_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    FILL_AFTER_MS_FIELD_NUMBER: _ClassVar[int]
    FILL_BOT_FIELD_NUMBER: _ClassVar[int]
    variants: _containers.RepeatedScalarFieldContainer[str]
    rated: bool
    matches: int
    fill_after_ms: int
    fill_bot: str
    def __init__(self, variants: _Optional[_Iterable[str]] = ..., rated: _Optional[bool] = ..., matches: _Optional[int] = ..., fill_after_ms: _Optional[int] = ..., fill_bot: _Optional[str] = ...) -> None: ...

class Joined(_message.Message):
    __slots__ = ("variants", "rated", "matches")
    VARIANTS_FIELD_NUMBER: _ClassVar[int]
    RATED_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    variants: _containers.RepeatedScalarFieldContainer[str]
    rated: bool
    matches: int
    def __init__(self, variants: _Optional[_Iterable[str]] = ..., rated: _Optional[bool] = ..., matches: _Optional[int] = ...) -> None: ...

class SeatAssigned(_message.Message):
    __slots__ = ("match", "player", "partner", "opponents")
    MATCH_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    PARTNER_FIELD_NUMBER: _ClassVar[int]
    OPPONENTS_FIELD_NUMBER: _ClassVar[int]
    match: MatchInfo
    player: int
    partner: str
    opponents: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, match: _Optional[_Union[MatchInfo, _Mapping]] = ..., player: _Optional[int] = ..., partner: _Optional[str] = ..., opponents: _Optional[_Iterable[str]] = ...) -> None: ...

class DealStarted(_message.Message):
    __slots__ = ("match_id", "deal", "seat", "seating", "players", "setup", "hand")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    DEAL_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEATING_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    SETUP_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    deal: int
    seat: int
    seating: _containers.RepeatedScalarFieldContainer[str]
    players: _containers.RepeatedScalarFieldContainer[int]
    setup: _struct_pb2.Struct
    hand: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, match_id: _Optional[str] = ..., deal: _Optional[int] = ..., seat: _Optional[int] = ..., seating: _Optional[_Iterable[str]] = ..., players: _Optional[_Iterable[int]] = ..., setup: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., hand: _Optional[_Iterable[str]] = ...) -> None: ...

class EventBatch(_message.Message):
    __slots__ = ("match_id", "events")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    events: _containers.RepeatedCompositeFieldContainer[Event]
    def __init__(self, match_id: _Optional[str] = ..., events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ...) -> None: ...

class DecisionRequest(_message.Message):
    __slots__ = ("request_id", "match_id", "deal", "observation", "decision_ms", "time_bank_ms", "deadline", "accepted")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    DEAL_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    DECISION_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_FIELD_NUMBER: _ClassVar[int]
    ACCEPTED_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    match_id: str
    deal: int
    observation: Observation
    decision_ms: int
    time_bank_ms: int
    deadline: _timestamp_pb2.Timestamp
    accepted: str
    def __init__(self, request_id: _Optional[str] = ..., match_id: _Optional[str] = ..., deal: _Optional[int] = ..., observation: _Optional[_Union[Observation, _Mapping]] = ..., decision_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ..., deadline: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., accepted: _Optional[str] = ...) -> None: ...

class ActionReply(_message.Message):
    __slots__ = ("request_id", "action", "index")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    action: Action
    index: int
    def __init__(self, request_id: _Optional[str] = ..., action: _Optional[_Union[Action, _Mapping]] = ..., index: _Optional[int] = ...) -> None: ...

class ActionResult(_message.Message):
    __slots__ = ("request_id", "match_id", "status", "reason", "action", "decision_ms", "time_bank_ms", "attempts_left")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    DECISION_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    ATTEMPTS_LEFT_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    match_id: str
    status: ActionStatus
    reason: str
    action: Action
    decision_ms: int
    time_bank_ms: int
    attempts_left: int
    def __init__(self, request_id: _Optional[str] = ..., match_id: _Optional[str] = ..., status: _Optional[_Union[ActionStatus, str]] = ..., reason: _Optional[str] = ..., action: _Optional[_Union[Action, _Mapping]] = ..., decision_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ..., attempts_left: _Optional[int] = ...) -> None: ...

class DealResult(_message.Message):
    __slots__ = ("match_id", "deal", "scores", "summary", "details", "totals", "match_over")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    DEAL_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    DETAILS_FIELD_NUMBER: _ClassVar[int]
    TOTALS_FIELD_NUMBER: _ClassVar[int]
    MATCH_OVER_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    deal: int
    scores: _containers.RepeatedScalarFieldContainer[int]
    summary: str
    details: _struct_pb2.Struct
    totals: _containers.RepeatedScalarFieldContainer[int]
    match_over: bool
    def __init__(self, match_id: _Optional[str] = ..., deal: _Optional[int] = ..., scores: _Optional[_Iterable[int]] = ..., summary: _Optional[str] = ..., details: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., totals: _Optional[_Iterable[int]] = ..., match_over: _Optional[bool] = ...) -> None: ...

class MatchResult(_message.Message):
    __slots__ = ("match_id", "reason", "winner_team", "totals", "deals", "summary", "rated", "rating_changes")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    WINNER_TEAM_FIELD_NUMBER: _ClassVar[int]
    TOTALS_FIELD_NUMBER: _ClassVar[int]
    DEALS_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    RATED_FIELD_NUMBER: _ClassVar[int]
    RATING_CHANGES_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    reason: EndReason
    winner_team: int
    totals: _containers.RepeatedScalarFieldContainer[int]
    deals: int
    summary: str
    rated: bool
    rating_changes: _containers.RepeatedCompositeFieldContainer[RatingChange]
    def __init__(self, match_id: _Optional[str] = ..., reason: _Optional[_Union[EndReason, str]] = ..., winner_team: _Optional[int] = ..., totals: _Optional[_Iterable[int]] = ..., deals: _Optional[int] = ..., summary: _Optional[str] = ..., rated: _Optional[bool] = ..., rating_changes: _Optional[_Iterable[_Union[RatingChange, _Mapping]]] = ...) -> None: ...

class Resume(_message.Message):
    __slots__ = ("seat", "deal", "observation", "totals")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DEAL_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    TOTALS_FIELD_NUMBER: _ClassVar[int]
    seat: SeatAssigned
    deal: DealStarted
    observation: Observation
    totals: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, seat: _Optional[_Union[SeatAssigned, _Mapping]] = ..., deal: _Optional[_Union[DealStarted, _Mapping]] = ..., observation: _Optional[_Union[Observation, _Mapping]] = ..., totals: _Optional[_Iterable[int]] = ...) -> None: ...

class Error(_message.Message):
    __slots__ = ("code", "message", "request_id")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    code: str
    message: str
    request_id: str
    def __init__(self, code: _Optional[str] = ..., message: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class Ping(_message.Message):
    __slots__ = ("nonce",)
    NONCE_FIELD_NUMBER: _ClassVar[int]
    nonce: int
    def __init__(self, nonce: _Optional[int] = ...) -> None: ...

class Pong(_message.Message):
    __slots__ = ("nonce", "server_time")
    NONCE_FIELD_NUMBER: _ClassVar[int]
    SERVER_TIME_FIELD_NUMBER: _ClassVar[int]
    nonce: int
    server_time: _timestamp_pb2.Timestamp
    def __init__(self, nonce: _Optional[int] = ..., server_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class Leave(_message.Message):
    __slots__ = ("now",)
    NOW_FIELD_NUMBER: _ClassVar[int]
    now: bool
    def __init__(self, now: _Optional[bool] = ...) -> None: ...

class Draining(_message.Message):
    __slots__ = ("reason", "deadline")
    REASON_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_FIELD_NUMBER: _ClassVar[int]
    reason: str
    deadline: _timestamp_pb2.Timestamp
    def __init__(self, reason: _Optional[str] = ..., deadline: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class Turn(_message.Message):
    __slots__ = ("match_id", "deal", "seat", "phase", "after_seq", "decision_ms", "time_bank_ms", "deadline")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    DEAL_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    AFTER_SEQ_FIELD_NUMBER: _ClassVar[int]
    DECISION_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    deal: int
    seat: int
    phase: str
    after_seq: int
    decision_ms: int
    time_bank_ms: int
    deadline: _timestamp_pb2.Timestamp
    def __init__(self, match_id: _Optional[str] = ..., deal: _Optional[int] = ..., seat: _Optional[int] = ..., phase: _Optional[str] = ..., after_seq: _Optional[int] = ..., decision_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ..., deadline: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class WatchRequest(_message.Message):
    __slots__ = ("match_id", "after_seq")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    AFTER_SEQ_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    after_seq: int
    def __init__(self, match_id: _Optional[str] = ..., after_seq: _Optional[int] = ...) -> None: ...

class WatchMessage(_message.Message):
    __slots__ = ("match", "deal_started", "events", "deal_result", "match_result", "turn", "live")
    MATCH_FIELD_NUMBER: _ClassVar[int]
    DEAL_STARTED_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    DEAL_RESULT_FIELD_NUMBER: _ClassVar[int]
    MATCH_RESULT_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    LIVE_FIELD_NUMBER: _ClassVar[int]
    match: MatchInfo
    deal_started: DealStarted
    events: EventBatch
    deal_result: DealResult
    match_result: MatchResult
    turn: Turn
    live: bool
    def __init__(self, match: _Optional[_Union[MatchInfo, _Mapping]] = ..., deal_started: _Optional[_Union[DealStarted, _Mapping]] = ..., events: _Optional[_Union[EventBatch, _Mapping]] = ..., deal_result: _Optional[_Union[DealResult, _Mapping]] = ..., match_result: _Optional[_Union[MatchResult, _Mapping]] = ..., turn: _Optional[_Union[Turn, _Mapping]] = ..., live: _Optional[bool] = ...) -> None: ...

class ListMatchesRequest(_message.Message):
    __slots__ = ("variant", "bot", "tournament_id", "statuses", "page_size", "page_token")
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    STATUSES_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    variant: str
    bot: str
    tournament_id: str
    statuses: _containers.RepeatedScalarFieldContainer[MatchStatus]
    page_size: int
    page_token: str
    def __init__(self, variant: _Optional[str] = ..., bot: _Optional[str] = ..., tournament_id: _Optional[str] = ..., statuses: _Optional[_Iterable[_Union[MatchStatus, str]]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListMatchesResponse(_message.Message):
    __slots__ = ("matches", "next_page_token")
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    matches: _containers.RepeatedCompositeFieldContainer[MatchSummary]
    next_page_token: str
    def __init__(self, matches: _Optional[_Iterable[_Union[MatchSummary, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class GetRatingsRequest(_message.Message):
    __slots__ = ("variant", "system", "limit")
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    SYSTEM_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    variant: str
    system: str
    limit: int
    def __init__(self, variant: _Optional[str] = ..., system: _Optional[str] = ..., limit: _Optional[int] = ...) -> None: ...

class RatingEntry(_message.Message):
    __slots__ = ("rank", "bot", "system", "value", "sigma", "matches", "updated_at", "description", "owner", "version")
    RANK_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    SYSTEM_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    rank: int
    bot: str
    system: str
    value: float
    sigma: float
    matches: int
    updated_at: _timestamp_pb2.Timestamp
    description: str
    owner: str
    version: str
    def __init__(self, rank: _Optional[int] = ..., bot: _Optional[str] = ..., system: _Optional[str] = ..., value: _Optional[float] = ..., sigma: _Optional[float] = ..., matches: _Optional[int] = ..., updated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., description: _Optional[str] = ..., owner: _Optional[str] = ..., version: _Optional[str] = ...) -> None: ...

class GetRatingsResponse(_message.Message):
    __slots__ = ("variant", "ratings")
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    RATINGS_FIELD_NUMBER: _ClassVar[int]
    variant: str
    ratings: _containers.RepeatedCompositeFieldContainer[RatingEntry]
    def __init__(self, variant: _Optional[str] = ..., ratings: _Optional[_Iterable[_Union[RatingEntry, _Mapping]]] = ...) -> None: ...

class GetRatingHistoryRequest(_message.Message):
    __slots__ = ("bot", "variant", "system")
    BOT_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    SYSTEM_FIELD_NUMBER: _ClassVar[int]
    bot: str
    variant: str
    system: str
    def __init__(self, bot: _Optional[str] = ..., variant: _Optional[str] = ..., system: _Optional[str] = ...) -> None: ...

class GetRatingHistoryResponse(_message.Message):
    __slots__ = ("changes",)
    CHANGES_FIELD_NUMBER: _ClassVar[int]
    changes: _containers.RepeatedCompositeFieldContainer[RatingChange]
    def __init__(self, changes: _Optional[_Iterable[_Union[RatingChange, _Mapping]]] = ...) -> None: ...

class GetMatchRecordRequest(_message.Message):
    __slots__ = ("match_id",)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    def __init__(self, match_id: _Optional[str] = ...) -> None: ...

class GetMatchRecordResponse(_message.Message):
    __slots__ = ("summary", "record_json")
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    RECORD_JSON_FIELD_NUMBER: _ClassVar[int]
    summary: MatchSummary
    record_json: str
    def __init__(self, summary: _Optional[_Union[MatchSummary, _Mapping]] = ..., record_json: _Optional[str] = ...) -> None: ...

class RegisterRequest(_message.Message):
    __slots__ = ("name", "owner", "version", "games", "description")
    NAME_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    name: str
    owner: str
    version: str
    games: _containers.RepeatedScalarFieldContainer[str]
    description: str
    def __init__(self, name: _Optional[str] = ..., owner: _Optional[str] = ..., version: _Optional[str] = ..., games: _Optional[_Iterable[str]] = ..., description: _Optional[str] = ...) -> None: ...

class RegisterResponse(_message.Message):
    __slots__ = ("bot_id", "name", "token", "token_id", "created")
    BOT_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    TOKEN_ID_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    bot_id: str
    name: str
    token: str
    token_id: str
    created: bool
    def __init__(self, bot_id: _Optional[str] = ..., name: _Optional[str] = ..., token: _Optional[str] = ..., token_id: _Optional[str] = ..., created: _Optional[bool] = ...) -> None: ...

class RevokeTokenRequest(_message.Message):
    __slots__ = ("token_id", "token", "bot_id")
    TOKEN_ID_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    BOT_ID_FIELD_NUMBER: _ClassVar[int]
    token_id: str
    token: str
    bot_id: str
    def __init__(self, token_id: _Optional[str] = ..., token: _Optional[str] = ..., bot_id: _Optional[str] = ...) -> None: ...

class RevokeTokenResponse(_message.Message):
    __slots__ = ("revoked", "connections_closed")
    REVOKED_FIELD_NUMBER: _ClassVar[int]
    CONNECTIONS_CLOSED_FIELD_NUMBER: _ClassVar[int]
    revoked: int
    connections_closed: int
    def __init__(self, revoked: _Optional[int] = ..., connections_closed: _Optional[int] = ...) -> None: ...

class CreateFixtureRequest(_message.Message):
    __slots__ = ("name", "variant", "options", "players", "matches", "deals", "seed", "paired", "rated", "clock")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    DEALS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    PAIRED_FIELD_NUMBER: _ClassVar[int]
    RATED_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    name: str
    variant: str
    options: _struct_pb2.Struct
    players: _containers.RepeatedScalarFieldContainer[str]
    matches: int
    deals: int
    seed: int
    paired: bool
    rated: bool
    clock: ClockSettings
    def __init__(self, name: _Optional[str] = ..., variant: _Optional[str] = ..., options: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., players: _Optional[_Iterable[str]] = ..., matches: _Optional[int] = ..., deals: _Optional[int] = ..., seed: _Optional[int] = ..., paired: _Optional[bool] = ..., rated: _Optional[bool] = ..., clock: _Optional[_Union[ClockSettings, _Mapping]] = ...) -> None: ...

class CreateFixtureResponse(_message.Message):
    __slots__ = ("tournament_id", "match_ids")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    MATCH_IDS_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    match_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, tournament_id: _Optional[str] = ..., match_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class TournamentDefinition(_message.Message):
    __slots__ = ("name", "variant", "options", "teams", "format", "reference", "matches", "deals", "seed", "paired", "rated", "clock")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    TEAMS_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    REFERENCE_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    DEALS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    PAIRED_FIELD_NUMBER: _ClassVar[int]
    RATED_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    name: str
    variant: str
    options: _struct_pb2.Struct
    teams: _containers.RepeatedCompositeFieldContainer[Team]
    format: str
    reference: Team
    matches: int
    deals: int
    seed: int
    paired: bool
    rated: bool
    clock: ClockSettings
    def __init__(self, name: _Optional[str] = ..., variant: _Optional[str] = ..., options: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., teams: _Optional[_Iterable[_Union[Team, _Mapping]]] = ..., format: _Optional[str] = ..., reference: _Optional[_Union[Team, _Mapping]] = ..., matches: _Optional[int] = ..., deals: _Optional[int] = ..., seed: _Optional[int] = ..., paired: _Optional[bool] = ..., rated: _Optional[bool] = ..., clock: _Optional[_Union[ClockSettings, _Mapping]] = ...) -> None: ...

class Team(_message.Message):
    __slots__ = ("bots",)
    BOTS_FIELD_NUMBER: _ClassVar[int]
    bots: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, bots: _Optional[_Iterable[str]] = ...) -> None: ...

class CreateTournamentRequest(_message.Message):
    __slots__ = ("definition", "toml")
    DEFINITION_FIELD_NUMBER: _ClassVar[int]
    TOML_FIELD_NUMBER: _ClassVar[int]
    definition: TournamentDefinition
    toml: str
    def __init__(self, definition: _Optional[_Union[TournamentDefinition, _Mapping]] = ..., toml: _Optional[str] = ...) -> None: ...

class CreateTournamentResponse(_message.Message):
    __slots__ = ("tournament_id", "matches")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    matches: int
    def __init__(self, tournament_id: _Optional[str] = ..., matches: _Optional[int] = ...) -> None: ...

class CancelMatchRequest(_message.Message):
    __slots__ = ("match_id", "reason")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    reason: str
    def __init__(self, match_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class CancelMatchResponse(_message.Message):
    __slots__ = ("match",)
    MATCH_FIELD_NUMBER: _ClassVar[int]
    match: MatchSummary
    def __init__(self, match: _Optional[_Union[MatchSummary, _Mapping]] = ...) -> None: ...
