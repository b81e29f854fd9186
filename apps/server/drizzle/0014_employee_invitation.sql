ALTER TABLE "employee" ADD COLUMN "invitation" text;--> statement-breakpoint
ALTER TABLE "employee" ADD COLUMN "joined_at" timestamp with time zone DEFAULT now();