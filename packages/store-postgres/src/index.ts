/** PostgreSQL stores live here; see README.md. */
export const STORE_POSTGRES_PACKAGE = "@agent/store-postgres";
