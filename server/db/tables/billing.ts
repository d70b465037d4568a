// Tables of the billing area; migration: migrations/ (see db/migrate.ts).
export {};
