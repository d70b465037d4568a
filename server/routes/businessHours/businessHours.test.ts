import { BUSINESS_HOURS_CLOSE_BEFORE_OPEN, BUSINESS_HOURS_NO_DAY, BUSINESS_HOURS_OVERLAP, BUSINESS_HOURS_TIME_INVALID, CLOSED_DATES_TOO_MANY, CLOSED_DATE_INVALID, TIME_ZONE_INVALID } from '@parley/shared';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HANDOVER_MESSAGE, handOver, replyTimeText } from '../../ai/visitors.js';
import { accounts, aiHandovers, conversations, visitors } from '../../db/schema.js';
import { buildChattingVisitor, type TestVisitor } from '../../test/chatFactories.js';
import { buildAccount, buildMember, call, everyoneOffline, type TestOwner } from '../../test/factories.js';
import { createTestApp, type TestApp } from '../../test/harness.js';

// Issue 17: the account's business hours (owner/Admin set them, everyone reads them); outside them
// the assistant's hand-over tells the visitor when the team is back.
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const get = (o: { token: string }) => call(t.app, 'GET', '/api/vms/business-hours', { token: o.token });
const put = (o: { token: string }, body: unknown) => call(t.app, 'PUT', '/api/vms/business-hours', { token: o.token, body });
const nineToFive = { open: '09:00', close: '17:00' };
const closedWeek = { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] };
/** A date `days` from now in a zone, YYYY-MM-DD. */
const dateIn = (days: number, zone: string) => new Intl.DateTimeFormat('en-CA', { timeZone: zone }).format(new Date(Date.now() + days * 86_400_000));
const WEEK = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
type Msg = { id: number; sender_type: string; message: string; ai?: { citation: unknown; vote: unknown; handover?: { back_at: string | null; reply_seconds: number | null } } };
const widgetMessages = async (v: TestVisitor) => {
  await t.app.events.drain();
  return (await call(t.app, 'GET', '/api/widget/messages', { token: v.token })).body.data as Msg[];
};

/** The weekday key of a date in a zone, and that date as YYYY-MM-DD. */
const weekdayIn = (d: Date, zone: string) => WEEK[(['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const).indexOf(new Intl.DateTimeFormat('en-US', { timeZone: zone, weekday: 'short' }).format(d) as 'Mon')]!;

describe('business hours settings', () => {
  let owner: TestOwner;
  beforeAll(async () => {
    owner = await buildAccount(t.app);
  });

  it('are "always open" by default, in the account time zone', async () => {
    const res = await get(owner);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ time_zone: 'UTC', hours: null, closed_dates: [], open_now: true, next_open_at: null });
  });

  it('the owner sets weekday hours and the zone they are in; every weekday comes back as a list of openings, closed days empty', async () => {
    const res = await put(owner, { time_zone: 'Europe/Berlin', hours: { mon: nineToFive, tue: nineToFive, wed: nineToFive, thu: nineToFive, fri: { open: '09:00', close: '15:30' } } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      time_zone: 'Europe/Berlin',
      hours: { mon: [nineToFive], tue: [nineToFive], wed: [nineToFive], thu: [nineToFive], fri: [{ open: '09:00', close: '15:30' }], sat: [], sun: [] },
    });
    expect(typeof res.body.data.open_now).toBe('boolean');
    expect((await get(owner)).body.data).toEqual(res.body.data);
    // The time zone is the account's: the conversation settings read the same.
    expect((await call(t.app, 'GET', '/api/vms/conversation-settings', { token: owner.token })).body.data.time_zone).toBe('Europe/Berlin');
    // Without time_zone the zone stays; null is always open again.
    expect((await put(owner, { hours: null })).body.data).toEqual({ time_zone: 'Europe/Berlin', hours: null, closed_dates: [], open_now: true, next_open_at: null });
  });

  it.each([
    [{ hours: { mon: { open: '9:00', close: '17:00' } } }, 'hours.mon.0.open', BUSINESS_HOURS_TIME_INVALID],
    [{ hours: { tue: [{ open: '09:00', close: '24:30' }] } }, 'hours.tue.0.close', BUSINESS_HOURS_TIME_INVALID],
    [{ hours: { wed: [{ open: '17:00', close: '09:00' }] } }, 'hours.wed.0.close', BUSINESS_HOURS_CLOSE_BEFORE_OPEN],
    [{ hours: { thu: { open: '10:00', close: '10:00' } } }, 'hours.thu.0.close', BUSINESS_HOURS_CLOSE_BEFORE_OPEN],
    [{ hours: { fri: [{ open: '09:00', close: '13:00' }, { open: '12:30', close: '17:00' }] } }, 'hours.fri.1.open', BUSINESS_HOURS_OVERLAP],
    [{ hours: { mon: null, sun: [] } }, 'hours', BUSINESS_HOURS_NO_DAY],
    [{ hours: {} }, 'hours', BUSINESS_HOURS_NO_DAY],
    [{ time_zone: 'Mars/Olympus', hours: null }, 'time_zone', TIME_ZONE_INVALID],
    [{ hours: null, closed_dates: ['2030-02-30'] }, 'closed_dates.0', CLOSED_DATE_INVALID],
    [{ hours: null, closed_dates: Array.from({ length: 101 }, (_, i) => `2030-01-${String((i % 28) + 1).padStart(2, '0')}`) }, 'closed_dates', CLOSED_DATES_TOO_MANY],
  ])('refuses %j with 422, the envelope and the field, changing nothing', async (body, field, message) => {
    const before = (await get(owner)).body.data;
    const res = await put(owner, body);
    expect(res.status).toBe(422);
    expect(res.body.errors[field]).toContain(message);
    expect(typeof res.body.message).toBe('string');
    expect(res.body.error).toBe(res.body.message);
    expect((await get(owner)).body.data).toEqual(before);
  });

  it('an Admin may change them, an Agent only reads them; another account neither sees nor changes them', async () => {
    const admin = await buildMember(t.app, owner, 'Admin');
    const agent = await buildMember(t.app, owner, 'Agent');
    expect((await put(admin, { hours: { sat: { open: '10:00', close: '14:00' } } })).status).toBe(200);
    const denied = await put(agent, { hours: null });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toBe(denied.body.message);
    expect((await get(agent)).body.data.hours.sat).toEqual([{ open: '10:00', close: '14:00' }]);
    const other = await buildAccount(t.app);
    expect((await get(other)).body.data.hours).toBeNull();
    expect((await put(other, { time_zone: 'Asia/Tokyo', hours: { mon: nineToFive } })).status).toBe(200);
    expect((await get(owner)).body.data).toMatchObject({ time_zone: 'Europe/Berlin', hours: { sat: [{ open: '10:00', close: '14:00' }], mon: [] } });
    expect((await call(t.app, 'GET', '/api/vms/business-hours')).status).toBe(401);
  });
});

describe('several openings a day and closed dates', () => {
  it('keeps a lunch break and closed dates (sorted, each once, past ones dropped); left out, closed dates stay', async () => {
    const owner = await buildAccount(t.app);
    const lunch = [
      { open: '13:00', close: '17:30' },
      { open: '09:00', close: '12:00' },
    ];
    const [yesterday, soon, later] = [dateIn(-1, 'Asia/Tokyo'), dateIn(10, 'Asia/Tokyo'), dateIn(40, 'Asia/Tokyo')];
    const res = await put(owner, { time_zone: 'Asia/Tokyo', hours: { mon: lunch, tue: lunch }, closed_dates: [later, soon, yesterday, soon] });
    expect(res.status).toBe(200);
    const sorted = [lunch[1], lunch[0]];
    expect(res.body.data).toMatchObject({ time_zone: 'Asia/Tokyo', hours: { ...closedWeek, mon: sorted, tue: sorted }, closed_dates: [soon, later] });
    expect((await get(owner)).body.data).toEqual(res.body.data);
    expect((await put(owner, { hours: { wed: [nineToFive] } })).body.data).toMatchObject({ hours: { ...closedWeek, wed: [nineToFive] }, closed_dates: [soon, later] });
    expect((await put(owner, { hours: null, closed_dates: [] })).body.data.closed_dates).toEqual([]);
  });

  it('reads hours stored one opening a day (before several a day) as lists, and a stored break as the previous release reads it', async () => {
    const owner = await buildAccount(t.app);
    const accountId = owner.user.account_id;
    await t.database.db.update(accounts).set({ timeZone: 'UTC', businessHours: { mon: nineToFive, tue: null } }).where(eq(accounts.id, accountId));
    expect((await get(owner)).body.data.hours).toEqual({ ...closedWeek, mon: [nineToFive] });
    // A day with a break keeps its first opening and last closing where one opening a day was read.
    await put(owner, { hours: { mon: [{ open: '09:00', close: '12:00' }, { open: '13:00', close: '17:00' }] } });
    const [row] = await t.database.db.select({ hours: accounts.businessHours }).from(accounts).where(eq(accounts.id, accountId));
    expect(row!.hours!.mon).toMatchObject({ open: '09:00', close: '17:00' });
    expect(row!.hours!.tue).toBeNull();
  });

  it('a closed date today makes the team closed now, back on the next open day', async () => {
    const owner = await buildAccount(t.app);
    const today = dateIn(0, 'UTC');
    const res = await put(owner, { time_zone: 'UTC', hours: null, closed_dates: [today] });
    expect(res.body.data.open_now).toBe(false);
    const tomorrow = new Date(`${today}T00:00:00Z`);
    tomorrow.setUTCDate(tomorrow.getUTCDate() + 1);
    expect(res.body.data.next_open_at).toBe(tomorrow.toISOString());
    // The widget's settings carry it for the away text; another account's widget does not.
    const widget = await call(t.app, 'GET', `/api/widget-settings?unique_code=${owner.widgetKey}`);
    expect(widget.body.data.back_at).toBe(tomorrow.toISOString());
    const other = await buildAccount(t.app);
    expect((await call(t.app, 'GET', `/api/widget-settings?unique_code=${other.widgetKey}`)).body.data.back_at).toBeNull();
  });

  it('each change is in the audit log, by whom and what, never with the hours themselves', async () => {
    const owner = await buildAccount(t.app);
    const admin = await buildMember(t.app, owner, 'Admin');
    await put(owner, { time_zone: 'Europe/Paris', hours: { mon: [nineToFive], fri: [nineToFive] }, closed_dates: [dateIn(20, 'Europe/Paris')] });
    await put(admin, { hours: null });
    expect((await put(await buildMember(t.app, owner, 'Agent'), { hours: null })).status).toBe(403);
    const log = (await call(t.app, 'GET', '/api/vms/audit-log?action=settings.updated', { token: owner.token })).body.data as { target: string; detail: unknown; actor: { id: number } }[];
    expect(log.map((e) => [e.target, e.detail, e.actor.id])).toEqual([
      ['business_hours', { always_open: true }, admin.id],
      ['business_hours', { always_open: false, open_days: ['mon', 'fri'], time_zone: 'Europe/Paris', closed_dates: 1 }, owner.user.id],
    ]);
  });
});

describe('the hand-over and business hours', () => {
  /** An account whose assistant answers visitors; nobody online. */
  async function account(zone: string, hours: unknown) {
    const owner = await buildAccount(t.app);
    expect((await put(owner, { time_zone: zone, hours })).status).toBe(200);
    await call(t.app, 'POST', '/api/chatbot/settings', { token: owner.token, body: { auto_answer_enabled: true, threshold: 0.6 } });
    await everyoneOffline(t.app, owner);
    return owner;
  }

  it('outside the hours tells the visitor when the team is back, in their own time zone, and carries back_at for the widget', async () => {
    // Open only on the weekday three days from now (in New York), 09:00 to 17:00: closed now.
    const zone = 'America/New_York';
    const day = weekdayIn(new Date(Date.now() + 3 * 86_400_000), zone);
    const owner = await account(zone, { [day]: nineToFive });
    const visitor = await buildChattingVisitor(t.app, owner.widgetKey, 'Is anyone there?');
    expect((await call(t.app, 'PATCH', '/api/widget/visitor', { token: visitor.token, body: { time_zone: 'Asia/Tokyo' } })).status).toBe(200);

    const res = await call(t.app, 'POST', '/api/widget/handover', { token: visitor.token, body: {} });
    expect(res.status).toBe(200);
    const backAt = new Date(res.body.data.back_at);
    // 09:00 in New York on that day.
    expect(new Intl.DateTimeFormat('en-GB', { timeZone: zone, weekday: 'short', hour: '2-digit', minute: '2-digit' }).format(backAt)).toBe(
      `${day[0]!.toUpperCase()}${day.slice(1)} 09:00`,
    );
    expect(backAt.getTime() - Date.now()).toBeGreaterThan(86_400_000);
    expect(backAt.getTime() - Date.now()).toBeLessThan(4 * 86_400_000);
    // Worded in the visitor's zone (Tokyo), which they read as their own: no zone named.
    const tokyo = new Intl.DateTimeFormat('en-GB', { timeZone: 'Asia/Tokyo', weekday: 'long', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(backAt);
    const part = (type: string) => tokyo.find((p) => p.type === type)!.value;
    expect(res.body.data.reply_time).toBe(`We're back ${part('weekday')} at ${part('hour')}:${part('minute')}.`);
    const msgs = await widgetMessages(visitor);
    expect(msgs.at(-1)).toMatchObject({
      sender_type: 'bot',
      message: `${HANDOVER_MESSAGE} ${res.body.data.reply_time}`,
      ai: { citation: null, vote: null, handover: { back_at: backAt.toISOString(), reply_seconds: null } },
    });
    // The console reads the same message and its hand-over.
    const consoleMsgs = (await call(t.app, 'GET', `/api/vms/messages/${visitor.id}`, { token: owner.token })).body.data as Msg[];
    expect(consoleMsgs.at(-1)!.ai!.handover).toEqual({ back_at: backAt.toISOString(), reply_seconds: null });
  });

  it('names the account zone when the visitor reported none, and uses the typical reply time within the hours (pinned clock)', async () => {
    const owner = await account('Europe/Berlin', { mon: nineToFive, tue: nineToFive, wed: nineToFive, thu: nineToFive, fri: nineToFive });
    const visitor = await buildChattingVisitor(t.app, owner.widgetKey, 'Hello?');
    const [conversation] = await t.database.db.select().from(conversations).where(eq(conversations.visitorId, visitor.id));
    const [row] = await t.database.db.select().from(visitors).where(eq(visitors.id, visitor.id));
    expect(row!.timeZone).toBe('');
    // Friday 27 November 2026, 18:30 in Berlin: back on Monday.
    const friday = new Date('2026-11-27T17:30:00Z');
    const out = await handOver(t.app, conversation!, row!, friday);
    expect(out).toEqual({ handover: true, reply_time: "We're back Monday at 09:00 (Europe/Berlin time).", typical_reply_seconds: null, back_at: '2026-11-30T08:00:00.000Z' });
    const [stored] = await t.database.db.select().from(aiHandovers).where(eq(aiHandovers.conversationId, conversation!.id));
    expect(stored).toMatchObject({ backAt: new Date('2026-11-30T08:00:00Z'), replySeconds: null });

    // Within the hours (a new conversation of another account, Tuesday 10:00 in Berlin): the typical reply time.
    const open = await account('Europe/Berlin', { tue: nineToFive });
    const v2 = await buildChattingVisitor(t.app, open.widgetKey, 'Hello?');
    const [c2] = await t.database.db.select().from(conversations).where(eq(conversations.visitorId, v2.id));
    const [r2] = await t.database.db.select().from(visitors).where(eq(visitors.id, v2.id));
    const inside = await handOver(t.app, c2!, r2!, new Date('2026-11-24T09:00:00Z'));
    expect(inside).toEqual({ handover: true, reply_time: replyTimeText(null), typical_reply_seconds: null, back_at: null });
    expect((await widgetMessages(v2)).at(-1)!.ai!.handover).toEqual({ back_at: null, reply_seconds: null });
  });

  it('skips a closed date: a holiday on the Monday after a weekend is back on Tuesday (pinned clock)', async () => {
    const owner = await account('Europe/Berlin', { mon: [nineToFive], tue: [{ open: '09:00', close: '12:00' }, { open: '13:00', close: '17:00' }] });
    // Set in the database: the pinned Monday is past by the time this runs, and saving drops past dates.
    await t.database.db.update(accounts).set({ closedDates: ['2026-11-30'] }).where(eq(accounts.id, owner.user.account_id));
    const visitor = await buildChattingVisitor(t.app, owner.widgetKey, 'Hello?');
    const [conversation] = await t.database.db.select().from(conversations).where(eq(conversations.visitorId, visitor.id));
    const [row] = await t.database.db.select().from(visitors).where(eq(visitors.id, visitor.id));
    const out = await handOver(t.app, conversation!, row!, new Date('2026-11-27T17:30:00Z')); // Friday 18:30
    expect(out).toMatchObject({ reply_time: "We're back Tuesday at 09:00 (Europe/Berlin time).", back_at: '2026-12-01T08:00:00.000Z' });
  });

  it('the typed "human" path says the same outside the hours', async () => {
    const zone = 'UTC';
    const day = weekdayIn(new Date(Date.now() + 2 * 86_400_000), zone);
    const owner = await account(zone, { [day]: { open: '06:00', close: '07:00' } });
    const visitor = await buildChattingVisitor(t.app, owner.widgetKey, 'Hi there');
    await call(t.app, 'POST', '/api/widget/messages', { token: visitor.token, body: { message: 'I want to talk to a human please' } });
    const last = (await widgetMessages(visitor)).at(-1)!;
    expect(last.message).toMatch(new RegExp(`^${HANDOVER_MESSAGE.replace(/[.?]/g, '\\$&')} We're back \\w+ at 06:00 \\(UTC time\\)\\.$`));
    expect(last.ai!.handover!.back_at).not.toBeNull();
  });
});
