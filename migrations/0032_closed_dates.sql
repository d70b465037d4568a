-- Issue 17, business hours a real team has: days the team is closed all day (holidays), as a
-- sorted list of "YYYY-MM-DD" in the account's time zone (at most 100; past ones are dropped when
-- the hours are saved). The hand-over and the widget's away text skip them for "back at".
-- Several openings a day (a lunch break) need no column: a day in accounts.business_hours keeps
-- its first opening and last closing as before and lists every opening in "openings" when there
-- are several (services/businessHours.ts), so the previous release keeps reading the day.
-- Additive only (a new column with a default), safe during a rolling restart. Keep in step with
-- server/db/tables/core.ts.
ALTER TABLE "accounts" ADD COLUMN IF NOT EXISTS "closed_dates" jsonb DEFAULT '[]'::jsonb NOT NULL;
