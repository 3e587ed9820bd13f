\set r random(1, 10)
