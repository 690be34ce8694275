"""Long work as Job rows that pages and the API poll: the runner (a compare-and-set claim; every job ends done or
failed), the registry of job kinds, uploaded files kept until their job is done, and the jobs API."""
