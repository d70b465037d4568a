/** Shapes that leave the server (presenters) and that the console and widget read. */
/** Who wrote a message. 'note': a private note; 'system': a lifecycle line ("Ada resolved the conversation"). */
export const SENDER_TYPES = ['visitor', 'user', 'bot', 'note', 'system'] as const;
export type SenderType = (typeof SENDER_TYPES)[number];
/**
 * The senders whose messages a visitor may ever see (widget calls and pushes, emails). Anything
 * else (private notes, system lines) stays with the team: server/policies/messages.ts applies it.
 */
export const VISITOR_SENDER_TYPES = ['visitor', 'user', 'bot'] as const;
export type VisitorSenderType = (typeof VISITOR_SENDER_TYPES)[number];
export const isVisitorVisible = (senderType: string): senderType is VisitorSenderType => (VISITOR_SENDER_TYPES as readonly string[]).includes(senderType);

/** A conversation label (issue 16): `color` is one of LABEL_COLORS. */
export interface LabelDto {
  id: number;
  name: string;
  color: string;
}

/** A canned reply: `{{visitor.name}}` and `{{agent.name}}` in `text` are filled in by the composer. */
export interface CannedReplyDto {
  id: number;
  title: string;
  text: string;
  shortcut: string;
}

/** open | pending (snoozed until `snoozed_until`, or until the visitor writes) | resolved. */
export const CONVERSATION_STATUSES = ['open', 'pending', 'resolved'] as const;
export type ConversationStatus = (typeof CONVERSATION_STATUSES)[number];

/** An agent's availability: routing and the widget's "agent online" count only 'online' members. */
export const AVAILABILITIES = ['online', 'away'] as const;
export type Availability = (typeof AVAILABILITIES)[number];

export interface UserDto {
  id: number;
  name: string;
  email: string;
  is_admin: boolean;
  status: 'active' | 'disabled';
  type: 'owner' | 'team_member';
  role: string | null;
  account_id: string;
  created_at: string;
  /**
   * The policy rules (server/policies) this user passes, e.g. 'settings.write', 'team.manage',
   * 'billing.manage', 'account.delete': the console shows or hides actions from these, never
   * from rules of its own.
   */
  permissions: string[];
  /** The plan in force (GET /api/vms/user only). */
  plan?: PlanInForceDto;
}

export interface PlanInForceDto {
  plan: 'Starter' | 'Professional' | 'Enterprise';
  trial: boolean;
  expires_at: string | null;
  /** New chats opened this calendar month (UTC); offline-form messages do not count. */
  chats_this_month: number;
  /** The plan's monthly new-chat limit; null when unlimited. */
  chat_limit: number | null;
  /** True once the limit is used up: new visitors get the offline form until the month ends or the plan changes. */
  limit_reached: boolean;
}

export interface AuthResponse {
  token: string;
  user: UserDto;
}

export interface ConversationDto {
  id: number;
  visitor_id: string;
  visitor_name: string;
  visitor_email: string;
  last_message: string;
  last_message_at: string | null;
  /** 'closed' only comes from a server before migration 0016 (the console still reads one). */
  status: ConversationStatus | 'closed';
  /** While pending: when it wakes up by itself; null: until the visitor writes (or not pending). */
  snoozed_until: string | null;
  /** Start of the current stretch (creation, or the last reopen after a resolve). */
  opened_at: string;
  /** When the last stretch was resolved; null while open or pending. */
  resolved_at: string | null;
  assignee_id: number | null;
  /** The assignee's name (the list, and the lifecycle calls and their pushes; other pushes leave it out). */
  assignee_name?: string | null;
  unread_count: number;
  created_at: string;
  /** Time of the oldest visitor message not answered by the team yet; null: nobody waiting (issue 16). */
  waiting_since?: string | null;
  /** Its labels, by name (GET /api/vms/conversations and label changes; other pushes leave it out). */
  labels?: LabelDto[];
  /** The newest message id the visitor has seen (seen ticks on agent messages); null: none yet. */
  visitor_seen_id?: number | null;
}

/** Conversations per status, for the list's Mine / Unassigned / All filters (issue 16). */
export interface ConversationStatusCounts {
  open: number;
  pending: number;
  resolved: number;
}

export interface ConversationCountsDto {
  mine: ConversationStatusCounts;
  unassigned: ConversationStatusCounts;
  /** Everything the asker may see (an Agent: Mine + Unassigned). */
  all: ConversationStatusCounts;
}

/** One hit of GET /api/vms/search: a message (message_id) or a visitor's name/email (message_id null). */
export interface SearchResultDto {
  visitor_id: string;
  conversation_id: number | null;
  message_id: number | null;
  /** Up to 160 characters around the first match. */
  snippet: string;
  /** [start, end) character offsets of the matched words in `snippet`. */
  highlights: [number, number][];
  created_at: string;
  visitor_name: string;
}

/** The paging fields every paged list answers with (issue 16; PRODUCT.md section 11). */
export interface PageInfo {
  /** Pass as `cursor` for the next page; null on the last page. */
  next_cursor: string | null;
  has_more: boolean;
}

export interface MessageDto {
  id: number;
  visitor_id: string;
  message: string;
  file_path: string;
  /**
   * Issue 13: the attachment's name, sniffed MIME type and size in bytes ('', '', 0 without one;
   * images stored before have '' type). The server always sends them; optional so a client's
   * local (not yet sent) message need not invent them.
   */
  file_name?: string;
  file_type?: string;
  file_size?: number;
  sender_type: SenderType;
  author_id: number | null;
  author_name: string | null;
  client_id: string | null;
  created_at: string;
  /** Issue 17: set on a bot message that is the assistant's answer from knowledge (absent otherwise). */
  ai?: MessageAiDto | null;
}

/** Issue 17: the assistant's answer to a visitor, as the widget and the console show it. */
export interface MessageAiDto {
  /** Where it came from (page title + link, or document / FAQ file name); null for learned answers. */
  citation: { title: string; url: string | null } | null;
  /** The visitor's "Was this helpful?" vote (recorded and shown to the owner; it re-weights nothing). */
  vote: 'helpful' | 'not_helpful' | null;
  /**
   * Issue 17: set on the assistant's hand-over message ("I'm asking a member of our team...") so the
   * widget can say it in the visitor's language and time zone: when the team is back (outside business
   * hours) or its typical reply time. Such a message has no vote and no citation.
   */
  handover?: MessageHandoverDto;
}

export interface MessageHandoverDto {
  /** Outside business hours: the next opening (ISO); null inside them or with no business hours. */
  back_at: string | null;
  /** Inside business hours: the typical first reply in seconds; null when there is none to go by. */
  reply_seconds: number | null;
}

/** Issue 17: POST /api/widget/handover — a person takes over; when they will reply, as the visitor reads it. */
export interface HandoverDto {
  handover: true;
  /** E.g. "Our team usually replies in a few minutes." */
  reply_time: string;
  /** Median first response of the last 30 days in seconds; null when there is none to go by. */
  typical_reply_seconds: number | null;
  /** Outside the account's business hours: when the team is back (ISO); null inside them or without business hours. */
  back_at: string | null;
}

/** Issue 17: GET/PUT /api/vms/business-hours — the account's opening hours in its time zone. */
export interface BusinessHoursDto {
  /** The account's IANA time zone (the conversation settings' time_zone). */
  time_zone: string;
  /** null: always open. Else every weekday's openings ("HH:MM" to "HH:MM"), in the day's order; [] for closed. */
  hours: Record<'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun', { open: string; close: string }[]> | null;
  /** Days closed all day ("YYYY-MM-DD" in time_zone, sorted), from today on. */
  closed_dates: string[];
  /** Whether the team is within its hours now, and when it opens next when not (ISO). */
  open_now: boolean;
  next_open_at: string | null;
}

export interface VisitorDto {
  id: string;
  name: string;
  email: string;
  country: string;
  ip: string;
  browser: string;
  os: string;
  device: string;
  current_page: string;
  referrer: string;
  locale: string;
  page_views: number;
  last_seen_at: string;
  created_at: string;
}

export interface WidgetSettingsDto {
  name: string;
  title: string;
  color: string;
  avatar: string;
  email_notifications: { newChats: boolean; offlineMessages: boolean; missedChats: boolean };
  /** The owner's choice to remove the widget's credit; the widget honours it only on Professional or above. */
  hide_branding: boolean;
}

/** GET/PUT /api/vms/user/alerts: the user's own console alerts while the tab is hidden (issue 16). */
export interface AlertPrefsDto {
  /** A desktop notification (once the browser's permission is granted). */
  desktop: boolean;
  /** A short sound. */
  sound: boolean;
}

export interface TeamMemberDto {
  id: number;
  name: string;
  email: string;
  role: { id: number; name: string };
  /** 'disabled': may not attach images (PRODUCT.md section 2). */
  status: 'active' | 'disabled';
  assigned_users: { id: string; name: string }[];
}

export interface PlanDto {
  id: number;
  name: string;
  description: string;
  price: number | null;
  features: string[];
}

export interface SubscriptionDto {
  id: number;
  plan_name: string;
  amount: number;
  status: string;
  is_active: boolean;
  payment_reference: string;
  start_date: string;
  expiry_date: string;
}

/**
 * GET /api/user/subscription (owner): what is in force, the trial and the paid periods (a payment
 * made during the trial starts when the trial ends), and a change scheduled for the period's end.
 */
export interface SubscriptionStatusDto {
  plan: 'Starter' | 'Professional' | 'Enterprise';
  trial: boolean;
  trial_ends_at: string | null;
  paid_plan: 'Starter' | 'Professional' | 'Enterprise' | null;
  /** First paid day not yet over (after the trial when paid during it). */
  paid_from: string | null;
  /** End of the months paid in advance. */
  paid_until: string | null;
  /** When what is in force ends unless the owner pays again (paid_until, else trial_ends_at). */
  period_ends_at: string | null;
  /** Starter from effective_at on: chosen as a downgrade, or a cancel. */
  scheduled_change: { kind: 'downgrade' | 'cancel'; plan: 'Starter' | 'Professional' | 'Enterprise'; effective_at: string } | null;
}

export interface IntegrationMetricDto {
  timestamp: string;
  usage_count: number;
  status: 'Active' | 'Pending' | 'Error';
}

/** Error envelope of every 4xx/5xx answer (PRODUCT.md section 3). */
export interface ErrorEnvelope {
  message: string;
  error: string;
  errors?: Record<string, string[]>;
  /** A stable code for the refusal when it has one (errorCodes.ts): clients word it themselves. */
  code?: import('./errorCodes.js').ErrorCode;
}

export type StatsRange = '1h' | '24h' | '7d' | '30d';

/** GET /api/vms/stats?range=: the dashboard's figures. `null` means "no data yet". */
export interface DashboardStatsDto {
  range: StatsRange;
  /** Visitors seen in the range, and the change against the range before it. */
  active_visitors: number;
  visitors_change_pct: number | null;
  /** Widgets connected right now. */
  online_visitors: number;
  /** Conversations with a message in the range. */
  active_chats: number;
  ai_resolved: number | null;
  ai_accuracy_pct: number | null;
  satisfaction: number | null;
  avg_first_response_seconds: number | null;
  uptime_pct: number | null;
  team_online: { online: number; total: number } | null;
  series: {
    /** Bucket starts (ISO), oldest first: hourly for 1h/24h, daily for 7d/30d. */
    buckets: string[];
    labels: string[];
    visitors: number[];
    chats: number[];
    page_views: number[] | null;
    ai_answers: number[] | null;
  };
  devices: { desktop: number; mobile: number; tablet: number } | null;
}

/** GET /api/widget-settings?unique_code= (public): what a visitor's widget may know — no account
 * id, emails or notification choices. */
export interface PublicWidgetSettingsDto {
  name: string;
  title: string;
  color: string;
  avatar_url: string;
  initial_greeting: string;
  follow_up_greeting: string;
  agent_online: boolean;
  /** Issue 17: outside the account's business hours, when the team is back (ISO); null inside them or without hours. */
  back_at?: string | null;
  powered_by: string;
  /** Issue 13: '' follows the visitor's browser; else the language the owner forces. */
  language?: string;
  /** Issue 13: greetings per language code (the default greetings above otherwise). */
  greetings_by_language?: Record<string, { initial_greeting: string; follow_up_greeting: string }>;
}

/** GET /api/vms/storage (owner only): the files the account stores against its plan's quota. */
export interface StorageUsageDto {
  /** Bytes of every stored upload, thumbnails included. */
  used_bytes: number;
  files: number;
  /** The plan's storage quota in bytes; null when the plan has none. */
  quota_bytes: number | null;
  quota_reached: boolean;
}

/** The AI Chatbot screen's review queue: what the assistant learned, and Agents' ratings waiting for confirmation. */
export type KnowledgeStatus = 'pending' | 'approved' | 'rejected';

export interface KnowledgeDto {
  id: number;
  source: 'conversation' | 'taught';
  status: KnowledgeStatus;
  question: string;
  answer: string;
  /** Private details removed from the reply before it was kept. */
  redactions: number;
  uses: number;
  helpful: number;
  not_helpful: number;
  /** Retired by feedback: no longer used to answer. */
  retired: boolean;
  conversation_id: number | null;
  visitor_id: string | null;
  author: { id: number; name: string } | null;
  reviewed_at: string | null;
  created_at: string;
}

export interface PendingFeedbackDto {
  message_id: number;
  feedback: 'helpful' | 'partially_helpful' | 'not_helpful';
  /** The answer that was rated, and the question it answered. */
  answer: string;
  question: string;
  /** The learned pattern rated, or (issue 17) the source passage: one of the two is set. */
  pattern_id: number | null;
  passage_id: number | null;
  user: { id: number; name: string };
  updated_at: string;
}

/** The assistant's knowledge sources (issue 17): GET/POST /api/chatbot/sources, .../upload, .../{id}/refresh. */
export interface AiSourceDto {
  id: string;
  kind: 'website' | 'document' | 'faq';
  /** The site's host or the file's name. */
  name: string;
  /** website: the URL the owner gave; null for documents and FAQ files. */
  url: string | null;
  status: 'queued' | 'refreshing' | 'ready' | 'failed';
  page_count: number;
  passage_count: number;
  last_refreshed_at: string | null;
  /** website: the next scheduled refresh (daily); null for documents and FAQ files (refreshed on demand). */
  next_refresh_at: string | null;
  /** The last refresh's error, or what it skipped (e.g. "3 pages skipped: robots.txt disallows /private"). */
  error: string | null;
  created_at: string;
}

/** Issue 17: GET /api/chatbot/source-usage?ids=…: which source answered what, per source. */
export interface AiSourceUsageDto {
  /** Answers its passages gave. */
  uses: number;
  /** The team's feedback on those answers (re-weights the passage). */
  helpful: number;
  not_helpful: number;
  /** Widget visitors' "Was this helpful?" votes on its answers (shown only, never re-weighting). */
  visitor_helpful: number;
  visitor_not_helpful: number;
}

/** GET /api/chatbot/sources/{id}/passages: what the assistant learned from a source. */
export interface AiPassageDto {
  id: number;
  /** The page's <title> or the document's name: what an answer cites. */
  title: string;
  /** The page's URL (website sources); null for documents and FAQ rows. */
  url: string | null;
  /** The heading the passage sits under ('' when none). */
  heading: string;
  /** FAQ rows: the question (text is the answer); null otherwise. */
  question: string | null;
  text: string;
  position: number;
  uses: number;
  helpful: number;
  not_helpful: number;
}

/** GET/POST /api/vms/conversation-settings. */
export interface ConversationSettingsDto {
  /** IANA zone, default 'UTC'. */
  time_zone: string;
  /** Open conversations silent this many hours are resolved; null: off (default). */
  auto_resolve_hours: number | null;
  /** New conversations go round-robin to available Agents; false by default. */
  round_robin: boolean;
}

/** GET/PATCH /api/vms/me/availability. */
export interface AvailabilityDto {
  availability: Availability;
  /** Routing stops giving this member new conversations while they hold this many open ones; null: no cap. */
  max_open_chats: number | null;
}

/** Issue 16, the Visitors page: GET /api/vms/visitor rows carry whether a widget of theirs is live now. */
export interface VisitorListItemDto extends VisitorDto {
  /** A widget socket of this visitor is connected now (any node). */
  online: boolean;
  /** The visitor has a conversation ("Start Chat" opens it; otherwise the first reply starts it). */
  has_conversation: boolean;
}

/** GET /api/vms/visitor (issue 16): a page of visitors, newest first, with totals from counters. */
export interface VisitorListAnswer {
  message: 'success';
  data: VisitorListItemDto[];
  next_cursor: string | null;
  has_more: boolean;
  /** Visitors matching the filters that the caller may see, over every page. */
  total: number;
  /** Distinct known countries among the account's visitors (the "Countries" card). */
  countries: number;
}

/** A website user (a visitor with a conversation) as the team screens list them. */
export interface AssignableUserDto {
  id: string;
  name: string;
}

/** GET /api/vms/users and GET /api/vms/team/{id}/assignments (issue 16): paged website users. */
export interface AssignableUserPage {
  message: 'success';
  data: AssignableUserDto[];
  next_cursor: string | null;
  has_more: boolean;
  total: number;
}

/** GET /api/vms/team/members (issue 16): who a conversation may be assigned to (owner and Admins). */
export interface AssigneeOptionDto {
  id: number;
  name: string;
  role: string;
  status: 'active' | 'disabled';
}

/**
 * GET /api/vms/team (issue 16): `assigned_users` holds at most TEAM_ASSIGNED_PREVIEW of the
 * member's website users (newest conversation first); `assigned_count` counts them all and the
 * Team dialog loads the full set from GET /api/vms/team/{id}/assignments.
 */
export interface TeamMemberListDto extends TeamMemberDto {
  assigned_count: number;
}
export const TEAM_ASSIGNED_PREVIEW = 20;

/** Issue 13: GET /api/widget/rating — whether the widget should ask now. */
export interface RatingStateDto {
  /** The survey is on, the stretch was answered or resolved, and not rated yet. */
  due: boolean;
  /** The stretch it is about (the conversation's opened_at, ISO); null without a conversation. */
  stretch: string | null;
}

/** Issue 13: a stored rating, as the console and the widget see it. */
export interface RatingDto {
  id: number;
  score: number;
  comment: string;
  stretch: string;
  agent_id: number | null;
  created_at: string;
}

/** Issue 13: GET /api/vms/ratings/summary — satisfaction averages for a range. */
export interface RatingSummaryDto {
  range: '1h' | '24h' | '7d' | '30d';
  enabled: boolean;
  /** Average score (one decimal) and how many ratings; null average without ratings. */
  average: number | null;
  count: number;
  agents: { user_id: number; name: string; average: number; count: number }[];
}

/**
 * GET /api/vms/conversations/:visitorId/context (issue 16, "Visitor context beside the chat"):
 * what the message center's side panel shows beyond the conversation itself.
 */
export interface VisitorContextDto {
  visitor: VisitorDto;
  /** The browser's IANA zone when the widget reported it; '' when unknown (no local time shown). */
  time_zone: string;
  /** Visits so far: a new one starts after 30 minutes without being seen. */
  visit_count: number;
  visit_started_at: string;
  /** Pages of the current visit, newest first (at most 50). */
  pages: { url: string; at: string }[];
  /** Past stretches of the one conversation (PRODUCT.md section 11), newest first (at most 50). */
  past_conversations: { opened_at: string; resolved_at: string; message_count: number; first_message: string }[];
  /** Private notes about the visitor (the conversation's notes), newest first (at most 20). */
  notes: MessageDto[];
}

/** Issue 13: POST /api/widget/transcript — sent now (the conversation is resolved) or when it is. */
export interface TranscriptRequestDto {
  status: 'sent' | 'scheduled';
}

/** Issue 13: a proactive trigger as the console and the widget see it. */
export interface TriggerDto {
  id: number;
  name: string;
  url_pattern: string;
  seconds_on_page: number;
  nth_page: number;
  returning_only: boolean;
  message: string;
  sender_name: string;
  sender_avatar: string;
  open_panel: boolean;
  enabled: boolean;
}

/** Issue 13: GET/PUT /api/vms/widget-language. */
export interface WidgetLanguageDto {
  language: string;
  greetings_by_language: Record<string, { initial_greeting: string; follow_up_greeting: string }>;
}

/**
 * Issue 17: where an assistant answer came from (a passage of one of the business's sources).
 * ChatbotMessageDto.sources (console) holds these ([] when the answer is not from a source).
 */
export interface ChatbotSourceDto {
  /** The page's <title>, the document's name, or the FAQ file's name. */
  title: string;
  /** The page's address (website sources); null for documents and FAQ rows. */
  url: string | null;
  source_id: string;
  passage_id: number;
}

/** The console assistant's chat (GET api/chatbot/history, POST api/chatbot/message): one message. */
export interface ChatbotMessageDto {
  id: number;
  sender_type: 'user' | 'bot';
  content: string;
  /** An attached image's stored path ('' when none). */
  file_path: string;
  /** Bot messages only (null on the user's). */
  confidence_score: number | null;
  intent_detected: string | null;
  /** The feedback given on a bot message, if any. */
  feedback: 'helpful' | 'partially_helpful' | 'not_helpful' | null;
  /** Issue 17: the source passages the answer came from ([] when none). */
  sources: ChatbotSourceDto[];
  created_at: string;
}

/** SPEC's `ai_learning_progress`: counted from the user's questions and the account's knowledge. */
export interface LearningProgressDto {
  total_interactions: number;
  learned_patterns: number;
  /** Average confidence of the assistant's answers to this user, 0-1. */
  average_confidence: number;
  /** Share of those answers at or above the answer threshold, 0-100. */
  learning_efficiency: number;
}

/** GET api/chatbot/insights: `insights`. */
export interface ChatbotInsightsDto {
  learning_progress: LearningProgressDto;
  /** The account's knowledge by origin, and how much feedback retired. */
  patterns: { active: number; retired: number; taught: number; learned_from_conversations: number };
  /** Feedback given on this user's answers. */
  feedback: { helpful: number; partially_helpful: number; not_helpful: number };
  /** What this user asks about most. */
  top_intents: { intent: string; count: number }[];
  /** Widget conversations answered by the assistant without a hand-over, last 30 days. */
  ai_resolved_last_30_days: number;
}

/** POST api/chatbot/message with `feedback`: the rating kept (pending: waits for an owner/Admin). */
export interface ChatbotFeedbackDto {
  message_id: number;
  feedback: 'helpful' | 'partially_helpful' | 'not_helpful';
  pending: boolean;
}

/** The visitors' auto-answer settings (GET/POST api/chatbot/settings `data`). */
export interface AiSettingsDto {
  auto_answer_enabled: boolean;
  /** The confidence an answer needs to be sent to a visitor, 0.5-0.99. */
  threshold: number;
  /** Learned knowledge is approved without the owner's review (default false). */
  auto_approve: boolean;
}

/** GET api/chatbot/settings `figures`: the account's auto-answer counts. */
export interface AutoAnswerFiguresDto {
  answers_given: number;
  handovers: number;
  /** Share of rated answers rated helpful (partially: half), 0-100; null with no ratings. */
  accuracy: number | null;
  rated_answers: number;
  /** Issue 17: visitors' "Was this helpful?" votes on the assistant's widget answers. */
  visitor_helpful: number;
  visitor_not_helpful: number;
}

/** The review queue's counts (knowledge per status, Agents' ratings waiting). */
export interface KnowledgeCountsDto {
  pending: number;
  approved: number;
  rejected: number;
  pending_feedback: number;
}

/** POST api/chatbot/feedback/{id}: an Agent's rating confirmed (applied) or dismissed. */
export interface FeedbackReviewDto {
  message_id: number;
  applied: boolean;
}

/** POST /api/initialize-payment (SPEC section 7): where to send the browser to pay. */
export interface PaymentInitAnswer {
  status: 'success';
  message: string;
  authorization_url: string;
  reference: string;
}

/**
 * GET /api/verify-payment/{reference}: the payment's outcome; `subscription` (the paid month)
 * only when it succeeded.
 */
export interface PaymentVerificationAnswer {
  status: 'success' | 'failed' | 'abandoned' | 'pending';
  message: string;
  reference: string;
  subscription?: SubscriptionDto;
}

/** POST /api/widget/resume `data`: a widget token for the visitor a reply email's link names. */
export interface WidgetResumeDto {
  visitor_id: string;
  visitor_token: string;
  name: string;
  email: string;
}
