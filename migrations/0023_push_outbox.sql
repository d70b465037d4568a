-- Pushes owed (issue 15, instant failover; server/outbox/pushRelay.ts). The statement that
-- stores a chat message writes its row here with the storing node's id; that node deletes the
-- row once the push left it. A row whose node is gone (its Redis connection closed: killed
-- between the commit and the push) is pushed by any live node, then deleted. Additive: the
-- previous release neither writes nor reads it.
CREATE TABLE IF NOT EXISTS "push_outbox" (
	"message_id" bigint PRIMARY KEY NOT NULL,
	"node" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
