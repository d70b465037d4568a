-- Roles a team member can hold (PRODUCT.md section 1) and the plans on sale (PRODUCT.md section 7).
INSERT INTO "roles" ("name") VALUES ('Admin'), ('Agent') ON CONFLICT ("name") DO NOTHING;
--> statement-breakpoint
INSERT INTO "plans" ("code", "name", "description", "price", "features", "position") VALUES
  ('starter', 'Starter', 'For small sites getting started with live chat.', 0,
   '["Up to 100 monthly chats","Basic widget","Email support","Standard integrations","Basic analytics"]', 0),
  ('professional', 'Professional', 'Everything a growing team needs to chat, automate and analyse.', 49,
   '["Unlimited chats","AI chatbot","Advanced analytics","Priority support","Custom branding","API access","Team collaboration"]', 1),
  ('enterprise', 'Enterprise', 'Custom volume, security reviews and a dedicated success manager. Contact sales.', NULL,
   '["Everything in Professional","Dedicated account manager","Custom integrations","SLA and security review","Single sign-on"]', 2)
ON CONFLICT ("code") DO NOTHING;
