"""Label sources: what each account that labels in a collection is (person, machine judge, imported file,
clicks) and what its labels do there (counted, advisory, gold). services change them with an audit trail;
selectors answer every question about whose labels count; views and api show and change them."""
