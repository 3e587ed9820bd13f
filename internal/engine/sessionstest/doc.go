// Package sessionstest holds the slow integration test of many client
// sessions on one generator (issue 21, "thousands of sessions"): 2,000
// clients with think times on a server of their own with max_connections
// raised, pgtrial run as a process. It is a package of its own because it
// takes ~30 s.
package sessionstest
