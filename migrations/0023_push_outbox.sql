-- Pushes owed (issue 15, instant failover; server/outbox/pushRelay.ts). The statement that
-- stores a chat message writes its row here; the node that stored it deletes the row once the
-- push left it. A row still here 500 ms after any node first saw it (its node died between the
-- commit and the push) is pushed by any live node, then deleted. Additive: the previous release
-- neither writes nor reads it.
CREATE TABLE IF NOT EXISTS "push_outbox" (
	"message_id" bigint PRIMARY KEY NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
