\set r debug(:client_id * 10000000000 + random(1000, 2000))
\set r debug(:client_id * 10000000000 + random_exponential(1, 1000, 2.5))
