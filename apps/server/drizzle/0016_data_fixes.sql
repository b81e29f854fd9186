-- Issue 14 item 9: an administrator role's description was stored mixed zh/en; the console now
-- describes a built-in administrator role in the reader's language (roles.adminRemark).
UPDATE "role" SET "remark" = NULL WHERE "is_admin" AND "remark" = 'Administrator: holds every menu / 拥有全部菜单';
--> statement-breakpoint
-- Issue 14 item 3: the columns sent_version/settled_at now hold the version the EMS last
-- confirmed and when (schema.ts appliedVersion/appliedAt). Before, a failed row kept its last
-- failed version there: no confirmed version is known for a row that is not applied.
UPDATE "device_delivery" SET "sent_version" = NULL, "settled_at" = NULL WHERE "state" <> 'applied';
