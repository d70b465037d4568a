// Tables of the jobs area; migration: migrations/ (see db/migrate.ts).
export {};
