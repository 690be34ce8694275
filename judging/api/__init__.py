"""REST endpoints of the judging app: `judgments` (assessors' own), `campaign` (collections, topics, documents, runs,
imports, pools, assignments). Each endpoint parses input, checks the role and calls one service or selector."""
