"""licenses: the release-route rules over task-card licence metadata and the licence review table."""
