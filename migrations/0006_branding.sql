-- Issue 6: plan limits.

-- Removing the widget's 'Powered by Parley' credit (honoured only on Professional or its trial).
ALTER TABLE "widget_settings" ADD COLUMN "hide_branding" boolean DEFAULT false NOT NULL;

-- A conversation opened by the offline form is not one of the Starter plan's monthly chats
-- (the visitor refused at the limit is offered exactly that form).
ALTER TABLE "conversations" ADD COLUMN "counts_toward_limit" boolean DEFAULT true NOT NULL;

-- The monthly chat limit notice is an account-wide email: no conversation.
ALTER TABLE "sent_emails" ALTER COLUMN "conversation_id" DROP NOT NULL;
