from rest_framework import serializers

from .models import Item


class ItemSerializer(serializers.ModelSerializer):
    class Meta:
        model = Item
        fields = ['id', 'name', 'created', 'price', 'category']
        read_only_fields = ['id', 'created']


class ItemSerializerV1(serializers.ModelSerializer):
    """Version 1 of the versioned items endpoint: a link, the id, name and price."""

    url = serializers.HyperlinkedIdentityField(view_name='versioned-item-detail')

    class Meta:
        model = Item
        fields = ['url', 'id', 'name', 'price']
        read_only_fields = ['id']


class ItemSerializerV2(serializers.ModelSerializer):
    """Version 2: everything of v1 plus created and category."""

    url = serializers.HyperlinkedIdentityField(view_name='versioned-item-detail')

    class Meta:
        model = Item
        fields = ['url', 'id', 'name', 'created', 'price', 'category']
        read_only_fields = ['id', 'created']
