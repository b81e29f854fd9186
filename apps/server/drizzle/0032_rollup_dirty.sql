CREATE TABLE "rollup_dirty" (
	"device_id" integer NOT NULL,
	"bucket_s" integer NOT NULL,
	"bucket_start" timestamp with time zone NOT NULL,
	"bucket_end" timestamp with time zone NOT NULL,
	CONSTRAINT "rollup_dirty_device_id_bucket_s_bucket_start_pk" PRIMARY KEY("device_id","bucket_s","bucket_start")
);
