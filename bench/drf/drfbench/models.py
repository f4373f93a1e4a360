"""DESIGN.md's demo table, read as it is (Django does not create or migrate it)."""
from django.db import models


class Item(models.Model):
    id = models.IntegerField(primary_key=True)
    name = models.TextField()
    # Stored as text 'YYYY-MM-DD HH:MM:SS[.ffffff]'; with USE_TZ the sqlite
    # backend reads it as UTC.
    created = models.DateTimeField(unique=True)
    price = models.IntegerField()
    category = models.TextField()

    class Meta:
        managed = False
        db_table = 'item'
