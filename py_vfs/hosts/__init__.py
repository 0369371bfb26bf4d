"""What the page serves from a disk: previews, and a view's requests to the page."""
