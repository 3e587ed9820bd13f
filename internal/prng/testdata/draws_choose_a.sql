\set r debug(:client_id * 10000000000 + random(1, 100))
