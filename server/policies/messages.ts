import { type SQL, inArray } from 'drizzle-orm';
import { VISITOR_SENDER_TYPES, isVisitorVisible } from '@parley/shared';
import { messages } from '../db/schema.js';

/**
 * The privacy rule of the thread (issue 16): a visitor only ever sees messages whose sender is
 * in VISITOR_SENDER_TYPES (visitor, user, bot). Private notes (sender_type 'note') and system
 * lines stay with the team: every widget call, visitor push, email and AI input goes through
 * one of these two helpers.
 */
export const visitorVisibleMessages = (): SQL => inArray(messages.senderType, [...VISITOR_SENDER_TYPES]);

/** The same rule for one message in hand (pushes, a stored message before it is sent on). */
export const isVisibleToVisitor = (m: { senderType: string }): boolean => isVisitorVisible(m.senderType);
