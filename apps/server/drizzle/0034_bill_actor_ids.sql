ALTER TABLE "bill" ADD COLUMN "created_by_id" integer;--> statement-breakpoint
ALTER TABLE "bill" ADD COLUMN "confirmed_by_id" integer;--> statement-breakpoint
ALTER TABLE "bill" ADD CONSTRAINT "bill_created_by_id_employee_id_fk" FOREIGN KEY ("created_by_id") REFERENCES "public"."employee"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bill" ADD CONSTRAINT "bill_confirmed_by_id_employee_id_fk" FOREIGN KEY ("confirmed_by_id") REFERENCES "public"."employee"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
UPDATE "bill" SET "created_by_id" = e."id", "created_by" = e."name" FROM "employee" e WHERE "bill"."created_by" = 'employee ' || e."id";--> statement-breakpoint
UPDATE "bill" SET "confirmed_by_id" = e."id", "confirmed_by" = e."name" FROM "employee" e WHERE "bill"."confirmed_by" = 'employee ' || e."id";
