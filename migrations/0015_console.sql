-- Plans promise only what exists (I#12 item 9, PRODUCT.md section 11): "API access" comes back
-- with the integrations issue's API keys; Single sign-on stays an Enterprise line arranged by sales.
UPDATE "plans" SET "features" = "features" - 'API access' WHERE "code" = 'professional';
--> statement-breakpoint
UPDATE "plans" SET "features" = (
  SELECT jsonb_agg(CASE WHEN f = 'Single sign-on' THEN 'Single sign-on on request' ELSE f END ORDER BY i)
  FROM jsonb_array_elements_text("features") WITH ORDINALITY AS t(f, i)
) WHERE "code" = 'enterprise' AND "features" ? 'Single sign-on';
