CREATE TABLE "github_write_reservations" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"installation_id" bigint NOT NULL,
	"reserved_at" timestamp with time zone NOT NULL,
	"sent_at" timestamp with time zone,
	"creates_content" boolean NOT NULL
);
--> statement-breakpoint
CREATE INDEX "github_write_reservations_installation_idx" ON "github_write_reservations" USING btree ("installation_id","reserved_at");