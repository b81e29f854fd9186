CREATE TABLE "site_demand_day" (
	"site_id" integer NOT NULL,
	"day" date NOT NULL,
	"timezone" text NOT NULL,
	"sources" text NOT NULL,
	"max_demand_kw" double precision,
	"baseline_max_demand_kw" double precision,
	"computed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "site_demand_day_site_id_day_pk" PRIMARY KEY("site_id","day")
);
--> statement-breakpoint
ALTER TABLE "site_demand_day" ADD CONSTRAINT "site_demand_day_site_id_site_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."site"("id") ON DELETE cascade ON UPDATE no action;