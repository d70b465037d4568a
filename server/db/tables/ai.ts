// Tables of the ai area; migration: migrations/ (see db/migrate.ts).
export {};
