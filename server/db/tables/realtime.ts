// Tables of the realtime area; migration: migrations/ (see db/migrate.ts).
export {};
