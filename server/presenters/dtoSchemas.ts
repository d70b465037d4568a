import type * as dto from '@parley/shared';
import { z } from 'zod';

/**
 * zod schemas of the DTOs in shared/src/types.ts and shared/src/schemas/{integrations,trust}.ts,
 * the shapes the presenters answer with: the routes' response schemas, so GET /api/openapi.json
 * describes every answer and the serializer checks it (plugins/openapi.test.ts validates real
 * answers against the document). Written with ts-to-zod from those interfaces. The serializer
 * (plugins/openapi.ts) checks an answer against its schema and sends it whole, never trimmed;
 * `DtoSchemasFit` fails to compile when an interface gains a field its schema lacks.
 */
export const senderTypeSchema = z.union([z.literal('visitor'), z.literal('user'), z.literal('bot'), z.literal('note'), z.literal('system')]);

export const visitorSenderTypeSchema = z.union([z.literal('visitor'), z.literal('user'), z.literal('bot')]);

export const labelDtoSchema = z.object({
    id: z.number(),
    name: z.string(),
    color: z.string()
});

export const cannedReplyDtoSchema = z.object({
    id: z.number(),
    title: z.string(),
    text: z.string(),
    shortcut: z.string()
});

export const conversationStatusSchema = z.union([z.literal('open'), z.literal('pending'), z.literal('resolved')]);

export const availabilitySchema = z.union([z.literal('online'), z.literal('away')]);

export const planInForceDtoSchema = z.object({
    plan: z.union([z.literal('Starter'), z.literal('Professional'), z.literal('Enterprise')]),
    trial: z.boolean(),
    expires_at: z.string().nullable(),
    chats_this_month: z.number(),
    chat_limit: z.number().nullable(),
    limit_reached: z.boolean()
});

export const userDtoSchema = z.object({
    id: z.number(),
    name: z.string(),
    email: z.string(),
    is_admin: z.boolean(),
    status: z.union([z.literal('active'), z.literal('disabled')]),
    type: z.union([z.literal('owner'), z.literal('team_member')]),
    role: z.string().nullable(),
    account_id: z.string(),
    created_at: z.string(),
    permissions: z.array(z.string()),
    plan: planInForceDtoSchema.optional()
});

export const conversationDtoSchema = z.object({
    id: z.number(),
    visitor_id: z.string(),
    visitor_name: z.string(),
    visitor_email: z.string(),
    last_message: z.string(),
    last_message_at: z.string().nullable(),
    status: z.union([conversationStatusSchema, z.literal('closed')]),
    snoozed_until: z.string().nullable(),
    opened_at: z.string(),
    resolved_at: z.string().nullable(),
    assignee_id: z.number().nullable(),
    assignee_name: z.string().optional().nullable(),
    unread_count: z.number(),
    created_at: z.string(),
    waiting_since: z.string().optional().nullable(),
    labels: z.array(labelDtoSchema).optional(),
    visitor_seen_id: z.number().optional().nullable()
});

export const conversationStatusCountsSchema = z.object({
    open: z.number(),
    pending: z.number(),
    resolved: z.number()
});

export const conversationCountsDtoSchema = z.object({
    mine: conversationStatusCountsSchema,
    unassigned: conversationStatusCountsSchema,
    all: conversationStatusCountsSchema
});

export const searchResultDtoSchema = z.object({
    visitor_id: z.string(),
    conversation_id: z.number().nullable(),
    message_id: z.number().nullable(),
    snippet: z.string(),
    highlights: z.array(z.tuple([z.number(), z.number()])),
    created_at: z.string(),
    visitor_name: z.string()
});

export const pageInfoSchema = z.object({
    next_cursor: z.string().nullable(),
    has_more: z.boolean()
});

export const messageAiDtoSchema = z.object({
    citation: z.object({
        title: z.string(),
        url: z.string().nullable()
    }).nullable(),
    vote: z.union([z.literal('helpful'), z.literal('not_helpful')]).nullable(),
    handover: z.object({
        back_at: z.string().nullable(),
        reply_seconds: z.number().nullable()
    }).optional()
});

export const handoverDtoSchema = z.object({
    handover: z.literal(true),
    reply_time: z.string(),
    typical_reply_seconds: z.number().nullable(),
    back_at: z.string().nullable()
});

const openingsDtoSchema = z.array(z.object({ open: z.string(), close: z.string() }));
export const businessHoursDtoSchema = z.object({
    time_zone: z.string(),
    hours: z.object({ mon: openingsDtoSchema, tue: openingsDtoSchema, wed: openingsDtoSchema, thu: openingsDtoSchema, fri: openingsDtoSchema, sat: openingsDtoSchema, sun: openingsDtoSchema }).nullable(),
    closed_dates: z.array(z.string()),
    open_now: z.boolean(),
    next_open_at: z.string().nullable()
});

export const visitorDtoSchema = z.object({
    id: z.string(),
    name: z.string(),
    email: z.string(),
    country: z.string(),
    ip: z.string(),
    browser: z.string(),
    os: z.string(),
    device: z.string(),
    current_page: z.string(),
    referrer: z.string(),
    locale: z.string(),
    page_views: z.number(),
    last_seen_at: z.string(),
    created_at: z.string()
});

export const widgetSettingsDtoSchema = z.object({
    name: z.string(),
    title: z.string(),
    color: z.string(),
    avatar: z.string(),
    email_notifications: z.object({
        newChats: z.boolean(),
        offlineMessages: z.boolean(),
        missedChats: z.boolean()
    }),
    hide_branding: z.boolean()
});

export const alertPrefsDtoSchema = z.object({
    desktop: z.boolean(),
    sound: z.boolean()
});

export const teamMemberDtoSchema = z.object({
    id: z.number(),
    name: z.string(),
    email: z.string(),
    role: z.object({
        id: z.number(),
        name: z.string()
    }),
    status: z.union([z.literal('active'), z.literal('disabled')]),
    assigned_users: z.array(z.object({
        id: z.string(),
        name: z.string()
    }))
});

export const planDtoSchema = z.object({
    id: z.number(),
    name: z.string(),
    description: z.string(),
    price: z.number().nullable(),
    features: z.array(z.string())
});

export const subscriptionDtoSchema = z.object({
    id: z.number(),
    plan_name: z.string(),
    amount: z.number(),
    status: z.string(),
    is_active: z.boolean(),
    payment_reference: z.string(),
    start_date: z.string(),
    expiry_date: z.string()
});

export const subscriptionStatusDtoSchema = z.object({
    plan: z.union([z.literal('Starter'), z.literal('Professional'), z.literal('Enterprise')]),
    trial: z.boolean(),
    trial_ends_at: z.string().nullable(),
    paid_plan: z.union([z.literal('Starter'), z.literal('Professional'), z.literal('Enterprise')]).nullable(),
    paid_from: z.string().nullable(),
    paid_until: z.string().nullable(),
    period_ends_at: z.string().nullable(),
    scheduled_change: z.object({
        kind: z.union([z.literal('downgrade'), z.literal('cancel')]),
        plan: z.union([z.literal('Starter'), z.literal('Professional'), z.literal('Enterprise')]),
        effective_at: z.string()
    }).nullable()
});

export const integrationMetricDtoSchema = z.object({
    timestamp: z.string(),
    usage_count: z.number(),
    status: z.union([z.literal('Active'), z.literal('Pending'), z.literal('Error')])
});

export const errorEnvelopeSchema = z.object({
    message: z.string(),
    error: z.string(),
    errors: z.record(z.string(), z.array(z.string())).optional(),
    code: z.any().optional()
});

export const statsRangeSchema = z.union([z.literal('1h'), z.literal('24h'), z.literal('7d'), z.literal('30d')]);

export const dashboardStatsDtoSchema = z.object({
    range: statsRangeSchema,
    active_visitors: z.number(),
    visitors_change_pct: z.number().nullable(),
    online_visitors: z.number(),
    active_chats: z.number(),
    ai_resolved: z.number().nullable(),
    ai_accuracy_pct: z.number().nullable(),
    satisfaction: z.number().nullable(),
    avg_first_response_seconds: z.number().nullable(),
    uptime_pct: z.number().nullable(),
    team_online: z.object({
        online: z.number(),
        total: z.number()
    }).nullable(),
    series: z.object({
        buckets: z.array(z.string()),
        labels: z.array(z.string()),
        visitors: z.array(z.number()),
        chats: z.array(z.number()),
        page_views: z.array(z.number()).nullable(),
        ai_answers: z.array(z.number()).nullable()
    }),
    devices: z.object({
        desktop: z.number(),
        mobile: z.number(),
        tablet: z.number()
    }).nullable()
});

export const publicWidgetSettingsDtoSchema = z.object({
    name: z.string(),
    title: z.string(),
    color: z.string(),
    avatar_url: z.string(),
    initial_greeting: z.string(),
    follow_up_greeting: z.string(),
    agent_online: z.boolean(),
    back_at: z.string().nullable().optional(),
    powered_by: z.string(),
    language: z.string().optional(),
    greetings_by_language: z.record(z.string(), z.object({
        initial_greeting: z.string(),
        follow_up_greeting: z.string()
    })).optional()
});

export const storageUsageDtoSchema = z.object({
    used_bytes: z.number(),
    files: z.number(),
    quota_bytes: z.number().nullable(),
    quota_reached: z.boolean()
});

export const knowledgeStatusSchema = z.union([z.literal('pending'), z.literal('approved'), z.literal('rejected')]);

export const knowledgeDtoSchema = z.object({
    id: z.number(),
    source: z.union([z.literal('conversation'), z.literal('taught')]),
    status: knowledgeStatusSchema,
    question: z.string(),
    answer: z.string(),
    redactions: z.number(),
    uses: z.number(),
    helpful: z.number(),
    not_helpful: z.number(),
    retired: z.boolean(),
    conversation_id: z.number().nullable(),
    visitor_id: z.string().nullable(),
    author: z.object({
        id: z.number(),
        name: z.string()
    }).nullable(),
    reviewed_at: z.string().nullable(),
    created_at: z.string()
});

export const pendingFeedbackDtoSchema = z.object({
    message_id: z.number(),
    feedback: z.union([z.literal('helpful'), z.literal('partially_helpful'), z.literal('not_helpful')]),
    answer: z.string(),
    question: z.string(),
    pattern_id: z.number().nullable(),
    passage_id: z.number().nullable(),
    user: z.object({
        id: z.number(),
        name: z.string()
    }),
    updated_at: z.string()
});

export const aiSourceDtoSchema = z.object({
    id: z.string(),
    kind: z.union([z.literal('website'), z.literal('document'), z.literal('faq')]),
    name: z.string(),
    url: z.string().nullable(),
    status: z.union([z.literal('queued'), z.literal('refreshing'), z.literal('ready'), z.literal('failed')]),
    page_count: z.number(),
    passage_count: z.number(),
    last_refreshed_at: z.string().nullable(),
    next_refresh_at: z.string().nullable(),
    error: z.string().nullable(),
    created_at: z.string()
});

export const aiSourceUsageDtoSchema = z.object({
    uses: z.number(),
    helpful: z.number(),
    not_helpful: z.number(),
    visitor_helpful: z.number(),
    visitor_not_helpful: z.number()
});

export const aiPassageDtoSchema = z.object({
    id: z.number(),
    title: z.string(),
    url: z.string().nullable(),
    heading: z.string(),
    question: z.string().nullable(),
    text: z.string(),
    position: z.number(),
    uses: z.number(),
    helpful: z.number(),
    not_helpful: z.number()
});

export const conversationSettingsDtoSchema = z.object({
    time_zone: z.string(),
    auto_resolve_hours: z.number().nullable(),
    round_robin: z.boolean()
});

export const availabilityDtoSchema = z.object({
    availability: availabilitySchema,
    max_open_chats: z.number().nullable()
});

export const visitorListItemDtoSchema = visitorDtoSchema.extend({
    online: z.boolean(),
    has_conversation: z.boolean()
});

export const visitorListAnswerSchema = z.object({
    message: z.literal('success'),
    data: z.array(visitorListItemDtoSchema),
    next_cursor: z.string().nullable(),
    has_more: z.boolean(),
    total: z.number(),
    countries: z.number()
});

export const assignableUserDtoSchema = z.object({
    id: z.string(),
    name: z.string()
});

export const assignableUserPageSchema = z.object({
    message: z.literal('success'),
    data: z.array(assignableUserDtoSchema),
    next_cursor: z.string().nullable(),
    has_more: z.boolean(),
    total: z.number()
});

export const assigneeOptionDtoSchema = z.object({
    id: z.number(),
    name: z.string(),
    role: z.string(),
    status: z.union([z.literal('active'), z.literal('disabled')])
});

export const teamMemberListDtoSchema = teamMemberDtoSchema.extend({
    assigned_count: z.number()
});

export const ratingStateDtoSchema = z.object({
    due: z.boolean(),
    stretch: z.string().nullable()
});

export const ratingDtoSchema = z.object({
    id: z.number(),
    score: z.number(),
    comment: z.string(),
    stretch: z.string(),
    agent_id: z.number().nullable(),
    created_at: z.string()
});

export const ratingSummaryDtoSchema = z.object({
    range: z.union([z.literal('1h'), z.literal('24h'), z.literal('7d'), z.literal('30d')]),
    enabled: z.boolean(),
    average: z.number().nullable(),
    count: z.number(),
    agents: z.array(z.object({
        user_id: z.number(),
        name: z.string(),
        average: z.number(),
        count: z.number()
    }))
});

export const messageDtoSchema = z.object({
    id: z.number(),
    visitor_id: z.string(),
    message: z.string(),
    file_path: z.string(),
    file_name: z.string().optional(),
    file_type: z.string().optional(),
    file_size: z.number().optional(),
    sender_type: senderTypeSchema,
    author_id: z.number().nullable(),
    author_name: z.string().nullable(),
    client_id: z.string().nullable(),
    created_at: z.string(),
    ai: messageAiDtoSchema.optional().nullable()
});

export const transcriptRequestDtoSchema = z.object({
    status: z.union([z.literal('sent'), z.literal('scheduled')])
});

export const triggerDtoSchema = z.object({
    id: z.number(),
    name: z.string(),
    url_pattern: z.string(),
    seconds_on_page: z.number(),
    nth_page: z.number(),
    returning_only: z.boolean(),
    message: z.string(),
    sender_name: z.string(),
    sender_avatar: z.string(),
    open_panel: z.boolean(),
    enabled: z.boolean()
});

export const widgetLanguageDtoSchema = z.object({
    language: z.string(),
    greetings_by_language: z.record(z.string(), z.object({
        initial_greeting: z.string(),
        follow_up_greeting: z.string()
    }))
});

export const chatbotSourceDtoSchema = z.object({
    title: z.string(),
    url: z.string().nullable(),
    source_id: z.string(),
    passage_id: z.number()
});

export const feedbackValueSchema = z.union([z.literal('helpful'), z.literal('partially_helpful'), z.literal('not_helpful')]);

export const chatbotMessageDtoSchema = z.object({
    id: z.number(),
    sender_type: z.union([z.literal('user'), z.literal('bot')]),
    content: z.string(),
    file_path: z.string(),
    confidence_score: z.number().nullable(),
    intent_detected: z.string().nullable(),
    feedback: feedbackValueSchema.nullable(),
    sources: z.array(chatbotSourceDtoSchema),
    created_at: z.string()
});

export const learningProgressDtoSchema = z.object({
    total_interactions: z.number(),
    learned_patterns: z.number(),
    average_confidence: z.number(),
    learning_efficiency: z.number()
});

export const chatbotInsightsDtoSchema = z.object({
    learning_progress: learningProgressDtoSchema,
    patterns: z.object({
        active: z.number(),
        retired: z.number(),
        taught: z.number(),
        learned_from_conversations: z.number()
    }),
    feedback: z.object({
        helpful: z.number(),
        partially_helpful: z.number(),
        not_helpful: z.number()
    }),
    top_intents: z.array(z.object({
        intent: z.string(),
        count: z.number()
    })),
    ai_resolved_last_30_days: z.number()
});

export const chatbotFeedbackDtoSchema = z.object({
    message_id: z.number(),
    feedback: feedbackValueSchema,
    pending: z.boolean()
});

export const aiSettingsDtoSchema = z.object({
    auto_answer_enabled: z.boolean(),
    threshold: z.number(),
    auto_approve: z.boolean()
});

export const autoAnswerFiguresDtoSchema = z.object({
    answers_given: z.number(),
    handovers: z.number(),
    accuracy: z.number().nullable(),
    rated_answers: z.number(),
    visitor_helpful: z.number(),
    visitor_not_helpful: z.number()
});

export const knowledgeCountsDtoSchema = z.object({
    pending: z.number(),
    approved: z.number(),
    rejected: z.number(),
    pending_feedback: z.number()
});

export const feedbackReviewDtoSchema = z.object({
    message_id: z.number(),
    applied: z.boolean()
});

export const paymentInitAnswerSchema = z.object({
    status: z.literal('success'),
    message: z.string(),
    authorization_url: z.string(),
    reference: z.string()
});

export const paymentVerificationAnswerSchema = z.object({
    status: z.union([z.literal('success'), z.literal('failed'), z.literal('abandoned'), z.literal('pending')]),
    message: z.string(),
    reference: z.string(),
    subscription: subscriptionDtoSchema.optional()
});

export const widgetResumeDtoSchema = z.object({
    visitor_id: z.string(),
    visitor_token: z.string(),
    name: z.string(),
    email: z.string()
});

export const apiKeyScopeSchema = z.union([z.literal('conversations:read'), z.literal('messages:send'), z.literal('visitors:manage'), z.literal('stats:read')]);

export const webhookEventSchema = z.union([z.literal('conversation.created'), z.literal('conversation.resolved'), z.literal('conversation.assigned'), z.literal('message.created'), z.literal('visitor.identified'), z.literal('rating.given')]);

export const apiKeyDtoSchema = z.object({
    id: z.string(),
    name: z.string(),
    scopes: z.array(apiKeyScopeSchema),
    prefix: z.string(),
    created_at: z.string(),
    last_used_at: z.string().nullable(),
    user: z.object({
        id: z.number(),
        name: z.string()
    })
});

export const webhookEndpointDtoSchema = z.object({
    id: z.string(),
    url: z.string(),
    events: z.array(webhookEventSchema),
    status: z.union([z.literal('active'), z.literal('paused')]),
    failing_since: z.string().nullable(),
    created_at: z.string()
});

export const webhookDeliveryDtoSchema = z.object({
    id: z.string(),
    event: z.string(),
    status: z.union([z.literal('pending'), z.literal('delivered'), z.literal('failed')]),
    attempts: z.number(),
    response_code: z.number().nullable(),
    last_error: z.string().nullable(),
    created_at: z.string(),
    last_attempt_at: z.string().nullable()
});

export const auditEntryDtoSchema = z.object({
    id: z.number(),
    action: z.string(),
    target: z.string(),
    actor: z.object({
        id: z.number().nullable(),
        email: z.string(),
        name: z.string().nullable()
    }),
    ip: z.string(),
    user_agent: z.string(),
    device: z.string(),
    detail: z.record(z.string(), z.unknown()),
    created_at: z.string()
});

export const twoFactorChallengeDtoSchema = z.object({
    message: z.literal('success'),
    two_factor_required: z.literal(true),
    challenge: z.string(),
    setup_required: z.literal(true).optional()
});

export const twoFactorSetupDtoSchema = z.object({
    secret: z.string(),
    otpauth_url: z.string(),
    qr: z.string()
});

export const securityStatusDtoSchema = z.object({
    email: z.string(),
    email_verified: z.boolean(),
    two_factor_enabled: z.boolean(),
    recovery_codes_left: z.number(),
    require_two_factor: z.boolean()
});

export const authResponseSchema = z.object({
    token: z.string(),
    user: userDtoSchema
});

export const visitorContextDtoSchema = z.object({
    visitor: visitorDtoSchema,
    time_zone: z.string(),
    visit_count: z.number(),
    visit_started_at: z.string(),
    pages: z.array(z.object({
        url: z.string(),
        at: z.string()
    })),
    past_conversations: z.array(z.object({
        opened_at: z.string(),
        resolved_at: z.string(),
        message_count: z.number(),
        first_message: z.string()
    })),
    notes: z.array(messageDtoSchema)
});

type Fits<S extends T, T> = [S, T];
export type DtoSchemasFit = [
  Fits<z.output<typeof labelDtoSchema>, dto.LabelDto>,
  Fits<z.output<typeof cannedReplyDtoSchema>, dto.CannedReplyDto>,
  Fits<z.output<typeof userDtoSchema>, dto.UserDto>,
  Fits<z.output<typeof planInForceDtoSchema>, dto.PlanInForceDto>,
  Fits<z.output<typeof authResponseSchema>, dto.AuthResponse>,
  Fits<z.output<typeof conversationDtoSchema>, dto.ConversationDto>,
  Fits<z.output<typeof conversationStatusCountsSchema>, dto.ConversationStatusCounts>,
  Fits<z.output<typeof conversationCountsDtoSchema>, dto.ConversationCountsDto>,
  Fits<z.output<typeof searchResultDtoSchema>, dto.SearchResultDto>,
  Fits<z.output<typeof pageInfoSchema>, dto.PageInfo>,
  Fits<z.output<typeof messageDtoSchema>, dto.MessageDto>,
  Fits<z.output<typeof messageAiDtoSchema>, dto.MessageAiDto>,
  Fits<z.output<typeof handoverDtoSchema>, dto.HandoverDto>,
  Fits<z.output<typeof businessHoursDtoSchema>, dto.BusinessHoursDto>,
  Fits<z.output<typeof visitorDtoSchema>, dto.VisitorDto>,
  Fits<z.output<typeof widgetSettingsDtoSchema>, dto.WidgetSettingsDto>,
  Fits<z.output<typeof alertPrefsDtoSchema>, dto.AlertPrefsDto>,
  Fits<z.output<typeof teamMemberDtoSchema>, dto.TeamMemberDto>,
  Fits<z.output<typeof planDtoSchema>, dto.PlanDto>,
  Fits<z.output<typeof subscriptionDtoSchema>, dto.SubscriptionDto>,
  Fits<z.output<typeof subscriptionStatusDtoSchema>, dto.SubscriptionStatusDto>,
  Fits<z.output<typeof integrationMetricDtoSchema>, dto.IntegrationMetricDto>,
  Fits<z.output<typeof errorEnvelopeSchema>, dto.ErrorEnvelope>,
  Fits<z.output<typeof dashboardStatsDtoSchema>, dto.DashboardStatsDto>,
  Fits<z.output<typeof publicWidgetSettingsDtoSchema>, dto.PublicWidgetSettingsDto>,
  Fits<z.output<typeof storageUsageDtoSchema>, dto.StorageUsageDto>,
  Fits<z.output<typeof knowledgeDtoSchema>, dto.KnowledgeDto>,
  Fits<z.output<typeof pendingFeedbackDtoSchema>, dto.PendingFeedbackDto>,
  Fits<z.output<typeof aiSourceDtoSchema>, dto.AiSourceDto>,
  Fits<z.output<typeof aiSourceUsageDtoSchema>, dto.AiSourceUsageDto>,
  Fits<z.output<typeof aiPassageDtoSchema>, dto.AiPassageDto>,
  Fits<z.output<typeof conversationSettingsDtoSchema>, dto.ConversationSettingsDto>,
  Fits<z.output<typeof availabilityDtoSchema>, dto.AvailabilityDto>,
  Fits<z.output<typeof visitorListItemDtoSchema>, dto.VisitorListItemDto>,
  Fits<z.output<typeof visitorListAnswerSchema>, dto.VisitorListAnswer>,
  Fits<z.output<typeof assignableUserDtoSchema>, dto.AssignableUserDto>,
  Fits<z.output<typeof assignableUserPageSchema>, dto.AssignableUserPage>,
  Fits<z.output<typeof assigneeOptionDtoSchema>, dto.AssigneeOptionDto>,
  Fits<z.output<typeof teamMemberListDtoSchema>, dto.TeamMemberListDto>,
  Fits<z.output<typeof ratingStateDtoSchema>, dto.RatingStateDto>,
  Fits<z.output<typeof ratingDtoSchema>, dto.RatingDto>,
  Fits<z.output<typeof ratingSummaryDtoSchema>, dto.RatingSummaryDto>,
  Fits<z.output<typeof visitorContextDtoSchema>, dto.VisitorContextDto>,
  Fits<z.output<typeof transcriptRequestDtoSchema>, dto.TranscriptRequestDto>,
  Fits<z.output<typeof triggerDtoSchema>, dto.TriggerDto>,
  Fits<z.output<typeof widgetLanguageDtoSchema>, dto.WidgetLanguageDto>,
  Fits<z.output<typeof chatbotSourceDtoSchema>, dto.ChatbotSourceDto>,
  Fits<z.output<typeof apiKeyDtoSchema>, dto.ApiKeyDto>,
  Fits<z.output<typeof webhookEndpointDtoSchema>, dto.WebhookEndpointDto>,
  Fits<z.output<typeof webhookDeliveryDtoSchema>, dto.WebhookDeliveryDto>,
  Fits<z.output<typeof auditEntryDtoSchema>, dto.AuditEntryDto>,
  Fits<z.output<typeof twoFactorChallengeDtoSchema>, dto.TwoFactorChallengeDto>,
  Fits<z.output<typeof twoFactorSetupDtoSchema>, dto.TwoFactorSetupDto>,
  Fits<z.output<typeof securityStatusDtoSchema>, dto.SecurityStatusDto>,
  Fits<z.output<typeof chatbotMessageDtoSchema>, dto.ChatbotMessageDto>,
  Fits<z.output<typeof learningProgressDtoSchema>, dto.LearningProgressDto>,
  Fits<z.output<typeof chatbotInsightsDtoSchema>, dto.ChatbotInsightsDto>,
  Fits<z.output<typeof chatbotFeedbackDtoSchema>, dto.ChatbotFeedbackDto>,
  Fits<z.output<typeof aiSettingsDtoSchema>, dto.AiSettingsDto>,
  Fits<z.output<typeof autoAnswerFiguresDtoSchema>, dto.AutoAnswerFiguresDto>,
  Fits<z.output<typeof knowledgeCountsDtoSchema>, dto.KnowledgeCountsDto>,
  Fits<z.output<typeof feedbackReviewDtoSchema>, dto.FeedbackReviewDto>,
  Fits<z.output<typeof paymentInitAnswerSchema>, dto.PaymentInitAnswer>,
  Fits<z.output<typeof paymentVerificationAnswerSchema>, dto.PaymentVerificationAnswer>,
  Fits<z.output<typeof widgetResumeDtoSchema>, dto.WidgetResumeDto>,
];

/**
 * SPEC's `message: 'success'`. Typed as a string so handlers need no `as const`; the document
 * and the serializer's check still say 'success'.
 */
const success = z.literal('success') as unknown as z.ZodType<string>;
/** SPEC's success envelope alone: `{ message: 'success' }`. */
export const successSchema = z.object({ message: success });
/** `{ message: 'success', data }`. */
export const okSchema = <S extends z.ZodType>(data: S) => z.object({ message: success, data });
/** A page: `{ message: 'success', data: [...], next_cursor, has_more }` (PRODUCT.md section 11). */
export const pageSchema = <S extends z.ZodType>(item: S) =>
  z.object({ message: success, data: z.array(item), next_cursor: z.string().nullable(), has_more: z.boolean() });
/** `{ message, token, user }` of POST /api/vms/register and /login (SPEC section 7). */
export const signedInSchema = z.object({ message: success, token: z.string(), user: userDtoSchema });
/** GET /api/vms/conversations (routes/conversations/inboxList.ts ConversationListAnswer). */
export const conversationListSchema = pageSchema(conversationDtoSchema).extend({
  total: z.number(),
  counts: conversationCountsDtoSchema,
  changes_cursor: z.string(),
  removed_ids: z.array(z.number()).optional(),
});
/** A conversation's or the widget's messages: next_cursor is the poll cursor (always given). */
export const messageListSchema = z.object({ message: success, data: z.array(messageDtoSchema), next_cursor: z.string(), has_more: z.boolean() });
/** The billing calls' envelope (SPEC section 7): `{ status: 'success', data, message }`. */
export const billingSchema = <S extends z.ZodType>(data: S) => z.object({ status: success, message: z.string(), data });

/** The console assistant's chat (SPEC section 7): messages, suggestion chips and the learning figures. */
export const chatbotChatSchema = z.object({ message: success, data: z.array(chatbotMessageDtoSchema), suggestions: z.array(z.string()), ai_learning_progress: learningProgressDtoSchema });
/** POST api/chatbot/message with `feedback`: the rating kept and the learning figures. */
export const chatbotFeedbackAnswerSchema = z.object({ message: success, data: chatbotFeedbackDtoSchema, ai_learning_progress: learningProgressDtoSchema });
/** GET api/chatbot/insights (SPEC: insights.learning_progress, and the other counted figures). */
export const chatbotInsightsAnswerSchema = z.object({ message: success, insights: chatbotInsightsDtoSchema });
/** GET api/chatbot/settings: the settings, their figures, the plan's gate; `review` (counts) for owners/Admins. */
export const chatbotSettingsAnswerSchema = okSchema(aiSettingsDtoSchema).extend({
  figures: autoAnswerFiguresDtoSchema,
  plan: z.object({ ai_available: z.boolean(), message: z.string().nullable() }),
  can_manage: z.boolean(),
  review: knowledgeCountsDtoSchema.optional(),
});
