// placeholder until the ring lands
